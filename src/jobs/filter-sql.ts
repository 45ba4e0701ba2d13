// The structured filters as one SQL condition over a snapshot's serving tables (sql/serve/catalog.sql),
// with every value a bound parameter. Text filters are not here: the text indexes answer them.
//
// Where the spec says "a posting", the posting filters hold on one and the same posting; the
// location filters likewise on one location. A single posting condition on a coded value (a
// source, a class, a currency...) is answered by the job's bit mask of the values its postings
// have, which is the same thing and needs no join; two or more posting conditions, or ranges
// (pay, dates), join the postings so that they hold on one posting. exclude_source asks for a
// posting from a source and source type both not listed.

import type { DuckDBValue } from '@duckdb/node-api';
import type { JobFilters } from './filters.js';
import type { Codes } from './snapshot.js';

export interface Condition {
  sql: string;
  params: Record<string, DuckDBValue>;
}

const CURRENTNESS: Record<string, number> = { current: 0, uncertain: 1, not_current: 2 };
const WORK_ARRANGEMENT: Record<string, number> = { remote: 1, hybrid: 2, in_person: 3 };

/** A posting condition: its SQL on the postings row `p`, and the mask test that means the same when it is alone. */
interface PostingTest {
  sql: string;
  mask?: string;
}

export function filterCondition(f: JobFilters, prefix: string, codes: Codes): Condition {
  const params: Record<string, DuckDBValue> = {};
  let n = 0;
  const bind = (value: DuckDBValue) => {
    const name = `v${n++}`;
    params[name] = value;
    return `$${name}`;
  };
  const inList = (column: string, values: string[]) => `${column} IN (${values.map(bind).join(', ')})`;
  const ts = (iso: string) => `${bind(iso)}::TIMESTAMPTZ`;
  /**
   * `(column & bits) <> 0` for the values' bits; undefined when a value has no bit (join instead).
   * With `blocks` > 1 the bits spread over columns column0, column1, ... of 62 bits each.
   */
  const maskTest = (column: string, kind: string, values: string[], blocks = 1): string | undefined => {
    const bits = new Array<bigint>(blocks).fill(0n);
    for (const value of values) {
      const code = codes.get(kind)?.get(value);
      if (code === undefined) continue; // nothing has it: adds nothing
      if (code >= 62 * blocks) return undefined;
      bits[Math.floor(code / 62)]! |= 1n << BigInt(code % 62);
    }
    const tests = bits.flatMap((b, i) => (b === 0n ? [] : [`(j.${blocks === 1 ? column : `${column}${i}`} & ${bind(b)}) <> 0`]));
    return tests.length === 0 ? 'false' : tests.length === 1 ? tests[0] : `(${tests.join(' OR ')})`;
  };
  const hasTest = (column: string, has: boolean) => `(j.${column} & ${has ? 1 : 2}) <> 0`;

  const job: string[] = [`j.currentness IN (${f.currentness.map((c) => CURRENTNESS[c]!).join(', ')})`];
  if (f.company !== undefined) {
    const term = f.company.toLowerCase();
    // A term of one or two characters would match inside nearly every name: it means the whole
    // name or its first word instead.
    if ([...term].length <= 2) job.push(`(j.employer_lc = ${bind(term)} OR split_part(j.employer_lc, ' ', 1) = ${bind(term)})`);
    else job.push(`contains(j.employer_lc, ${bind(term)})`);
  }
  if (f.company_id !== undefined) job.push(`j.company_id = ${bind(f.company_id)}`);
  if (f.job_id !== undefined) job.push(`j.job_id = ${bind(f.job_id)}`);
  if (f.work_arrangement !== undefined) job.push(`j.work_arrangement = ${WORK_ARRANGEMENT[f.work_arrangement] ?? -1}`);
  if (f.stale !== undefined) job.push(`j.stale = ${bind(f.stale)}`);
  if (f.company_linked !== undefined) job.push(f.company_linked ? 'j.company_id IS NOT NULL' : 'j.company_id IS NULL');
  if (f.has_description !== undefined) job.push(`j.has_description = ${bind(f.has_description)}`);
  if (f.has_location !== undefined) job.push(`j.has_location = ${bind(f.has_location)}`);
  if (f.first_seen_since) job.push(`j.job_first_seen_at >= ${ts(f.first_seen_since)}`);
  if (f.first_seen_until) job.push(`j.job_first_seen_at <= ${ts(f.first_seen_until)}`);
  if (f.updated_since) job.push(`j.job_updated_at >= ${ts(f.updated_since)}`);
  if (f.updated_until) job.push(`j.job_updated_at <= ${ts(f.updated_until)}`);
  if (f.curated_since) job.push(`j.curated_at >= ${ts(f.curated_since)}`);
  if (f.curated_until) job.push(`j.curated_at <= ${ts(f.curated_until)}`);

  // Locations: every condition holds on one location. One kind of condition alone (the countries; a
  // state, in its countries; a metro) is a mask of the job; several, or a text, join the locations.
  // Alone, a state is a U.S. state; with country, that country's subdivision.
  const subdivisions = f.state === undefined ? undefined : (f.country ?? ['US']).map((c) => `${c}-${f.state}`);
  const location: string[] = [];
  const masks: (string | undefined)[] = [];
  if (f.location !== undefined) location.push(`contains(l.text, ${bind(f.location.toLowerCase())})`);
  if (f.city !== undefined) location.push(`contains(l.city, ${bind(f.city.toLowerCase())})`);
  if (f.msa !== undefined) {
    location.push(`l.cbsa_code = ${bind(f.msa)}`);
    masks.push(maskTest('msa_mask', 'msa', [f.msa], 3));
  }
  if (subdivisions) {
    location.push(`l.state = ${bind(f.state!)}`, inList('l.country', f.country ?? ['US']));
    masks.push(maskTest('subdivision_mask', 'subdivision', subdivisions, 3));
  } else if (f.country) {
    location.push(inList('l.country', f.country));
    masks.push(maskTest('country_mask', 'country', f.country));
  }
  for (const mask of masks) if (mask) job.push(mask);
  const needsJoin = f.location !== undefined || f.city !== undefined || masks.length > 1 || masks.some((m) => m === undefined);
  if (needsJoin && location.length > 0) job.push(`j.doc IN (SELECT l.doc FROM ${prefix}locations l WHERE ${location.join(' AND ')})`);

  const posting: PostingTest[] = [];
  const coded = (column: string, kind: string, values: string[], maskColumn: string) =>
    posting.push({ sql: values.length === 1 ? `p.${column} = ${bind(values[0]!)}` : inList(`p.${column}`, values), mask: maskTest(maskColumn, kind, values) });
  if (f.source !== undefined) coded('source', 'source', [f.source.toLowerCase()], 'source_mask');
  if (f.source_type !== undefined) coded('source_type', 'source_type', [f.source_type.toLowerCase()], 'type_mask');
  if (f.source_class !== undefined) coded('source_class', 'source_class', [f.source_class], 'class_mask');
  if (f.posting_status !== undefined) coded('status', 'status', [f.posting_status], 'status_mask');
  if (f.employment_type) coded('employment_type', 'employment_type', f.employment_type, 'employment_mask');
  if (f.pay_currency !== undefined) coded('pay_currency', 'pay_currency', [f.pay_currency], 'currency_mask');
  if (f.application_check !== undefined) coded('check_result', 'check_result', [f.application_check], 'check_mask');
  if (f.has_pay !== undefined) posting.push({ sql: `p.has_pay = ${f.has_pay}`, mask: hasTest('pay_mask', f.has_pay) });
  if (f.has_posting_url !== undefined) posting.push({ sql: `p.has_posting_url = ${f.has_posting_url}`, mask: hasTest('posting_url_mask', f.has_posting_url) });
  if (f.has_application_url !== undefined) posting.push({ sql: `p.has_application_url = ${f.has_application_url}`, mask: hasTest('application_url_mask', f.has_application_url) });
  if (f.posting_id !== undefined) posting.push({ sql: `p.posting_id = ${bind(f.posting_id)}` });
  if (f.source_posting_id !== undefined) posting.push({ sql: `p.source_posting_id = ${bind(f.source_posting_id)}` });
  // Pay per year; an unknown interval has no yearly amount and never matches.
  if (f.pay_min !== undefined) posting.push({ sql: `p.pay_floor_year >= ${bind(f.pay_min)}` });
  if (f.pay_max !== undefined) posting.push({ sql: `p.pay_ceiling_year <= ${bind(f.pay_max)}` });
  if (f.posted_since) posting.push({ sql: `p.posted_at >= ${ts(f.posted_since)}` });
  if (f.posted_until) posting.push({ sql: `p.posted_at <= ${ts(f.posted_until)}` });
  if (f.last_fetch_since) posting.push({ sql: `p.last_fetch_at >= ${ts(f.last_fetch_since)}` });
  if (f.last_fetch_until) posting.push({ sql: `p.last_fetch_at <= ${ts(f.last_fetch_until)}` });
  if (f.application_check_since) posting.push({ sql: `p.checked_at >= ${ts(f.application_check_since)}` });
  // Masks always narrow (they are implied by the same-posting test); alone they are the whole test.
  for (const test of posting) if (test.mask) job.push(test.mask);
  if (posting.length > 1 || (posting.length === 1 && !posting[0]!.mask)) {
    job.push(`j.doc IN (SELECT p.doc FROM ${prefix}postings p WHERE ${posting.map((t) => t.sql).join(' AND ')})`);
  }
  if (f.exclude_source) {
    const left = f.exclude_source;
    job.push(`j.doc IN (SELECT p.doc FROM ${prefix}postings p WHERE NOT (${inList('p.source', left)} OR ${inList("coalesce(p.source_type, '')", left)}))`);
  }
  const sql = job.join(' AND ');
  // Conditions written but not used (a posting test answered by its mask) leave their values out.
  const used = new Set(Array.from(sql.matchAll(/\$(v\d+)\b/g), (m) => m[1]!));
  return { sql, params: Object.fromEntries(Object.entries(params).filter(([name]) => used.has(name))) };
}
