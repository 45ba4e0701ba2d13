-- Normalisation rules as SQL macros, shared by every stage of a publication.

-- name: macros
CREATE OR REPLACE MACRO squash(s) AS trim(regexp_replace(s, '\s+', ' ', 'g'));

-- Lowercase ASCII words: accents folded, punctuation dropped, "&" read as "and".
CREATE OR REPLACE MACRO plain_words(s) AS
  squash(regexp_replace(replace(strip_accents(lower(s)), '&', ' and '), '[^a-z0-9]+', ' ', 'g'));

-- "Northwind Logistics, Inc.", "NORTHWIND LOGISTICS INC", "Northwind Logistics Pvt. Ltd." and
-- "Northwind Logistics GmbH & Co. KG" → "northwind logistics".
CREATE OR REPLACE MACRO employer_key(name) AS nullif(squash(regexp_replace(plain_words(name),
  '\b(and co|the|inc|incorporated|llc|l l c|ltd|ltda|limited|corp|corporation|co|company|companies|gmbh|kg|plc|ag|sa|s a|sas|sarl|srl|spa|bv|b v|nv|n v|se|oy|ab|pty|pte|pvt|private|bhd|lp|llp)\b',
  ' ', 'g')), '');

-- A title without requisition numbers, bracketed tags and trailing location or remote notes.
CREATE OR REPLACE MACRO clean_title(t) AS squash(
  regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(t,
    '\s*\((?:R|REQ|Req|JR|Job|ID)?[-# :]*[A-Z]*-?\d[\w-]*\)', '', 'g'),
    '\s*[-–|]\s*(?:Req(?:uisition)?|Job ID|ID)\.?\s*#?:?\s*[\w-]*\d[\w-]*\s*$', '', 'g'),
    '\s*\[[^\]]*\]', '', 'g'),
    '\s*\((?:remote|hybrid|on-?site)[^)]*\)', '', 'gi'),
    '\s+[-–|]\s+(?:remote\b.*|[A-Z][A-Za-z .''-]+,\s*[A-Z]{2}(?:,\s*[A-Z]{2,3})?)\s*$', '', 'g'));

-- The merge key of a (clean) title: abbreviations spelled out, case, accents and punctuation dropped.
CREATE OR REPLACE MACRO title_words(t) AS squash(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
  ' ' || plain_words(t) || ' ',
  ' sr ', ' senior ', 'g'), ' jr ', ' junior ', 'g'), ' mgr ', ' manager ', 'g'), ' asst ', ' assistant ', 'g'), ' dir ', ' director ', 'g'),
  ' admin (assistant|support|coordinator|officer|specialist) ', ' administrative \1 ', 'g'));
CREATE OR REPLACE MACRO title_key(t) AS title_words(clean_title(t));
-- The core of a title: what comes before its first qualifier (", Retail Banking", " - Web", " (Nights)").
CREATE OR REPLACE MACRO title_core(t) AS title_words(regexp_extract(t, '^[^,(–|]*?(?:\s+-\s+|$|,|\(|–|\|)', 0));

-- HTML to text: every run of tags becomes a line break, the common entities are decoded.
-- (Splitting on "<" is several times cheaper than a regular expression over long texts.)
CREATE OR REPLACE MACRO decode_entities(x) AS CASE WHEN contains(x, '&') THEN
  replace(replace(replace(replace(replace(replace(replace(x, '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'),
    '&#39;', ''''), '&apos;', ''''), '&amp;', '&') ELSE x END;
CREATE OR REPLACE MACRO html_text(h) AS decode_entities(array_to_string(list_filter(
  list_transform(string_split(h, '<'), piece -> substr(piece, instr(piece, '>') + 1)), piece -> piece <> ''), chr(10)));

-- Sentence fingerprints for near-duplicate detection: 32-bit hashes of the lowercased sentences;
-- a truncated text ("...") loses its last, partial sentence.
CREATE OR REPLACE MACRO sentences(txt) AS list_filter(string_split(replace(lower(txt), chr(10), '.'), '.'), s -> strlen(s) >= 12);
CREATE OR REPLACE MACRO sentence_hashes(txt) AS list_distinct(list_transform(
  CASE WHEN ends_with(txt, '...') OR ends_with(txt, '…') THEN sentences(txt)[:-2] ELSE sentences(txt) END,
  s -> (hash(s) >> 32)::UINTEGER));

-- A text as compared for prefixes: lower case, paragraph breaks as single line breaks.
CREATE OR REPLACE MACRO prefix_form(txt) AS replace(lower(txt), chr(10) || chr(10), chr(10));

-- A URL as a matching key: scheme, "www.", fragment, trailing slash and tracking parameters dropped
-- (the regular expression runs only on the URLs that carry a tracking parameter).
CREATE OR REPLACE MACRO url_key(u) AS nullif(rtrim(replace(replace(replace(
  CASE WHEN contains(u, 'utm_') OR contains(u, 'gh_src=') OR contains(u, 'ref=') OR contains(u, 'src=') OR contains(u, 'source=') OR contains(u, 'trk')
       THEN regexp_replace(regexp_replace(lower(split_part(u, '#', 1)),
              '[?&](utm_[a-z]+|ref|refid|src|source|gh_src|trk|trackingid)=[^&]*', '', 'g'), '^([^?&]*)&', '\1?')
       ELSE lower(split_part(u, '#', 1)) END,
  'https://', ''), 'http://', ''), 'www.', ''), '/?&'), '');

-- A source that is the employer's own: its ATS or its careers page.
CREATE OR REPLACE MACRO employer_own(source_class) AS source_class IN ('ats', 'employer-site');

CREATE OR REPLACE MACRO work_arrangement_of(w) AS CASE
  WHEN w IS NULL THEN NULL
  WHEN plain_words(w) IN ('remote', 'fully remote', 'remote first', 'work from home', 'wfh', 'telecommute', 'virtual', 'anywhere') THEN 'remote'
  WHEN plain_words(w) IN ('hybrid', 'hybrid remote', 'flexible', 'partially remote') THEN 'hybrid'
  WHEN plain_words(w) IN ('on site', 'onsite', 'in office', 'in person', 'office', 'office based', 'in the office', 'on location') THEN 'in_person'
  ELSE NULL END;

CREATE OR REPLACE MACRO employment_type_of(e) AS CASE
  WHEN e IS NULL OR plain_words(e) = '' THEN NULL
  WHEN plain_words(e) IN ('full time', 'fulltime', 'permanent', 'regular', 'regular full time', 'permanent full time', 'ft') THEN 'full-time'
  WHEN plain_words(e) IN ('part time', 'parttime', 'pt', 'regular part time', 'permanent part time') THEN 'part-time'
  WHEN plain_words(e) IN ('contract', 'contractor', 'contract to hire', 'freelance', 'fixed term', 'consultant') THEN 'contract'
  WHEN plain_words(e) IN ('temporary', 'temp', 'seasonal', 'temp to hire') THEN 'temporary'
  WHEN plain_words(e) IN ('internship', 'intern', 'co op', 'apprenticeship', 'trainee') THEN 'internship'
  WHEN plain_words(e) IN ('per diem', 'prn', 'on call', 'casual') THEN 'per-diem'
  WHEN plain_words(e) IN ('volunteer') THEN 'volunteer'
  ELSE replace(plain_words(e), ' ', '-') END;

CREATE OR REPLACE MACRO pay_interval_of(i) AS CASE
  WHEN plain_words(i) IN ('hour', 'hourly', 'per hour', 'hr', 'an hour', 'hours') THEN 'hour'
  WHEN plain_words(i) IN ('day', 'daily', 'per day', 'a day') THEN 'day'
  WHEN plain_words(i) IN ('week', 'weekly', 'per week', 'a week', 'wk') THEN 'week'
  WHEN plain_words(i) IN ('month', 'monthly', 'per month', 'a month', 'mo') THEN 'month'
  WHEN plain_words(i) IN ('year', 'yearly', 'per year', 'annual', 'annually', 'a year', 'yr', 'per annum', 'salary') THEN 'year'
  ELSE 'unknown' END;

-- Pay per year for the pay filters; an unknown interval never compares.
CREATE OR REPLACE MACRO per_year(amount, itv) AS amount * CASE itv
  WHEN 'hour' THEN 2080 WHEN 'day' THEN 260 WHEN 'week' THEN 52 WHEN 'month' THEN 12 WHEN 'year' THEN 1 ELSE NULL END;

-- The pay a description states, as a posting's pay (currency, floor, ceiling, interval), or NULL: the
-- first amount or range written with a currency and an interval ("$120,000 - $150,000 per year",
-- "from £30,000 a year", "up to €25 per hour", "$50k-$60k annually", "USD 40/hr"). "from" gives a
-- floor, "up to" a ceiling, a single amount both. A bare "$" is read as US dollars.
CREATE OR REPLACE MACRO money_currency(symbol) AS CASE trim(upper(symbol))
  WHEN '$' THEN 'USD' WHEN 'US$' THEN 'USD' WHEN 'CA$' THEN 'CAD' WHEN 'C$' THEN 'CAD' WHEN 'A$' THEN 'AUD'
  WHEN 'R$' THEN 'BRL' WHEN '£' THEN 'GBP' WHEN '€' THEN 'EUR' WHEN '₹' THEN 'INR' ELSE trim(upper(symbol)) END;
CREATE OR REPLACE MACRO money_amount(digits, thousands) AS
  CASE WHEN digits = '' THEN NULL ELSE replace(digits, ',', '')::DOUBLE * CASE WHEN thousands = '' THEN 1 ELSE 1000 END END;
CREATE OR REPLACE MACRO interval_word(w) AS CASE
  WHEN w IN ('year', 'yr', 'annum', 'annually', 'yearly') THEN 'year' WHEN w IN ('month', 'mo', 'monthly') THEN 'month'
  WHEN w IN ('week', 'wk', 'weekly') THEN 'week' WHEN w IN ('day', 'daily') THEN 'day' WHEN w IN ('hour', 'hr', 'hourly') THEN 'hour' END;
-- The pattern's parts: a currency (a symbol or a code, then maybe a space) and an amount (its digits,
-- then "k" for thousands).
CREATE OR REPLACE MACRO money_symbol_pattern() AS '(US\$|CA\$|C\$|A\$|R\$|\$|£|€|₹|USD|CAD|AUD|GBP|EUR|INR|BRL|CHF) ?';
CREATE OR REPLACE MACRO money_amount_pattern() AS '(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(k?)';
CREATE OR REPLACE MACRO stated_pay(txt) AS list_transform([regexp_extract(txt,
  '(?i)(from |up to |)' || money_symbol_pattern() || money_amount_pattern()
  || '(?:\s*(?:-|–|—|to)\s*(?:' || money_symbol_pattern() || ')?' || money_amount_pattern() || ')?'
  || '\s*(?:(?:per|an|a|/)\s*(year|yr|annum|month|mo|week|wk|day|hour|hr)\b|(annually|yearly|monthly|weekly|daily|hourly)\b)',
  ['lead', 'symbol', 'a1', 'k1', 'symbol2', 'a2', 'k2', 'per1', 'per2'])], m -> CASE WHEN coalesce(m.a1, '') = '' THEN NULL ELSE {
    currency: money_currency(m.symbol),
    floor: CASE WHEN lower(m.lead) = 'up to ' THEN NULL ELSE money_amount(m.a1, m.k1) END,
    ceiling: CASE WHEN lower(m.lead) = 'from ' THEN NULL ELSE coalesce(money_amount(m.a2, m.k2), money_amount(m.a1, m.k1)) END,
    "interval": interval_word(lower(m.per1 || m.per2))} END)[1];

-- A posting as published: the struct built for sorting, without its sort key.
CREATE OR REPLACE MACRO struct_extract_postings(x) AS {
  posting_id: x.posting_id, source: x.source, source_class: x.source_class, source_posting_id: x.source_posting_id,
  posting_url: x.posting_url, application_url: x.application_url, attribution: x.attribution, status: x.status,
  employment_type: x.employment_type, posted_at: x.posted_at, first_seen_at: x.first_seen_at,
  last_fetch_at: x.last_fetch_at, pay: x.pay, application_check: x.application_check, source_data: x.source_data};

-- Ids are UUIDs (version 4 layout) derived from a seed string, so a rerun gives the same ids.
CREATE OR REPLACE MACRO uuid_of(h) AS h[1:8] || '-' || h[9:12] || '-4' || h[14:16] || '-' ||
  substr('89ab89ab89ab89ab', instr('0123456789abcdef', h[17]), 1) || h[18:20] || '-' || h[21:32];
CREATE OR REPLACE MACRO uuid_from(seed) AS uuid_of(md5(seed));
