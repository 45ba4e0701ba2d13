// A raw posting as one JSON line, field by field: the same bytes as JSON.stringify, at a fraction of the cost.

import type { RawPosting } from './posting.js';

// Only free text is escaped: ids, slugs, URLs, enums, fixed spellings and timestamps never hold quotes, backslashes or
// control characters (a test compares every line of a corpus with JSON.stringify).
const text = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));
const plain = (value: string | null) => (value === null ? 'null' : `"${value}"`);
const number = (value: number | null) => (value === null ? 'null' : String(value));

const payJson = (pay: RawPosting['pay']) =>
  pay ? `{"currency":"${pay.currency}","min":${number(pay.min)},"max":${number(pay.max)},"interval":${plain(pay.interval)}}` : 'null';

export function postingJson(p: RawPosting): string {
  const pay = payJson(p.pay);
  const attribution = p.attribution
    ? `{"required":${p.attribution.required},"text":"${p.attribution.text}","url":"${p.attribution.url}"}`
    : 'null';
  const check = p.application_check
    ? `{"result":"${p.application_check.result}","checked_at":"${p.application_check.checked_at}"}`
    : 'null';
  const data = p.source_data;
  const x = p.raw.extraction;
  return (
    `{"source":"${p.source}","board":"${p.board}","source_posting_id":"${p.source_posting_id}","source_class":"${p.source_class}","source_type":"${p.source_type}",` +
    `"opening_id":"${p.opening_id}","truth_company_id":${plain(p.truth_company_id)},"employer_name":${text(p.employer_name)},"employer_domain":${plain(p.employer_domain)},"truth_soc_code":"${p.truth_soc_code}","truth_description_pay":${payJson(p.truth_description_pay)},"truth_skills":${JSON.stringify(p.truth_skills)},` +
    `"truth_listed_by_employer":${String(p.truth_listed_by_employer)},"truth_reposts":${p.truth_reposts},` +
    `"title":${text(p.title)},"description_text":${text(p.description_text)},"description_html":${text(p.description_html)},"locations":${JSON.stringify(p.locations)},` +
    `"work_arrangement":${plain(p.work_arrangement)},"employment_type":${plain(p.employment_type)},"pay":${pay},"posted_at":${plain(p.posted_at)},"first_seen_at":"${p.first_seen_at}",` +
    `"posting_url":${plain(p.posting_url)},"application_url":${plain(p.application_url)},"attribution":${attribution},"application_check":${check},` +
    `"source_data":{"source_type":"${data.source_type}","department":${plain(data.department)},"requisition_id":${plain(data.requisition_id)},"board_kind":"${data.board_kind}"},` +
    `"raw":{"collector":"${p.raw.collector}","http_status":${p.raw.http_status},"extraction":{"method":"${x.method}","parser":"${x.parser}","fields":${x.fields},"elapsed_ms":${x.elapsed_ms}}}}`
  );
}
