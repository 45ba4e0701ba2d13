// Writes small hand-made deliveries (the collectors' day folders of docs/corpus.md) for behaviour tests.

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TestPosting {
  source: string;
  board: string;
  id: string;
  opening: string;
  source_class?: string;
  employer?: string;
  domain?: string | null;
  title?: string;
  description?: string;
  locations?: string[];
  work_arrangement?: string | null;
  employment_type?: string | null;
  pay?: { currency: string; min: number | null; max: number | null; interval: string } | null;
  posted_at?: string | null;
  /** The collectors' first sighting; left out of the line when not given. */
  first_seen_at?: string;
  posting_url?: string | null;
  application_url?: string | null;
  check?: 'available' | 'closed' | 'broken' | 'inconclusive';
  company?: string | null;
}

export interface TestRead {
  source: string;
  board: string;
  complete?: boolean;
}

export interface TestCompany {
  company_id: string;
  name: string;
  domain?: string | null;
  country?: string;
  merged_into?: string | null;
}

export interface TestDay {
  /** Boards read that day; by default every board of the day's postings, completely. */
  reads?: TestRead[];
  postings: TestPosting[];
  withdrawals?: { source: string; id: string; reason?: string }[];
  registry?: { release_id: string; companies: TestCompany[] };
}

export const START = Date.parse('2026-11-01T06:00:00.000Z');

export function cutoffOf(day: number): string {
  return new Date(START + (day - 1) * 86_400_000).toISOString();
}

export const DEFAULT_DESCRIPTION =
  'Northwind Logistics moves freight across North America. You will plan routes for our regional fleet. ' +
  'You will work with drivers and dispatchers every day. Two years of logistics experience are required. ' +
  'We offer health insurance and a retirement plan.';

function line(p: TestPosting, day: number): string {
  const at = cutoffOf(day);
  return JSON.stringify({
    source: p.source,
    board: p.board,
    source_posting_id: p.id,
    source_class: p.source_class ?? (p.source === 'indeed' ? 'aggregator' : 'ats'),
    source_type: p.source === 'indeed' ? 'aggregator_api' : 'ats_api',
    opening_id: p.opening,
    truth_company_id: p.company ?? null,
    employer_name: p.employer ?? 'Northwind Logistics, Inc.',
    employer_domain: p.domain === undefined ? 'northwind-logistics.com' : p.domain,
    title: p.title ?? 'Logistics Planner',
    description_text: p.description ?? DEFAULT_DESCRIPTION,
    description_html: null,
    locations: p.locations ?? ['Chicago, IL'],
    work_arrangement: p.work_arrangement === undefined ? 'On-site' : p.work_arrangement,
    employment_type: p.employment_type === undefined ? 'FULL_TIME' : p.employment_type,
    pay: p.pay === undefined ? { currency: 'USD', min: 60000, max: 75000, interval: 'YEAR' } : p.pay,
    posted_at: p.posted_at === undefined ? '2026-10-30T12:00:00.000Z' : p.posted_at,
    ...(p.first_seen_at === undefined ? {} : { first_seen_at: p.first_seen_at }),
    posting_url: p.posting_url === undefined ? `https://${p.source}.example/${p.board}/${p.id}` : p.posting_url,
    application_url: p.application_url ?? null,
    attribution: p.source === 'indeed' ? { required: true, text: 'Jobs via Indeed', url: 'https://indeed.example' } : null,
    application_check: { result: p.check ?? 'available', checked_at: at },
    source_data: { source_type: p.source === 'indeed' ? 'aggregator_api' : 'ats_api', department: null, requisition_id: null },
    raw: { collector: 'test', secret_internal: 'never published' },
  });
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Writes `root/day-00K/` and returns its path. */
export async function writeDay(root: string, day: number, spec: TestDay): Promise<string> {
  const dir = join(root, `day-${String(day).padStart(3, '0')}`);
  await mkdir(join(dir, 'postings'), { recursive: true });
  const cutoff = cutoffOf(day);
  const finished = new Date(Date.parse(cutoff) - 3_600_000).toISOString();
  const boards: TestRead[] = spec.reads ?? [
    ...new Map(spec.postings.map((p) => [`${p.source}/${p.board}`, { source: p.source, board: p.board }])).values(),
  ];
  const reads = boards.map((r) =>
    JSON.stringify({
      source: r.source,
      board: r.board,
      source_class: 'ats',
      started_at: finished,
      finished_at: finished,
      complete: r.complete ?? true,
      listed: 0,
    }),
  );
  await writeFile(join(dir, 'reads.jsonl'), reads.join('\n') + '\n');
  const bySource = new Map<string, string[]>();
  for (const p of spec.postings) bySource.set(p.source, [...(bySource.get(p.source) ?? []), line(p, day)]);
  const postings = [];
  for (const [source, lines] of bySource) {
    const text = lines.join('\n') + '\n';
    await writeFile(join(dir, 'postings', `${source}.jsonl`), text);
    postings.push({ path: `postings/${source}.jsonl`, source, rows: lines.length, bytes: text.length, sha256: sha(text) });
  }
  if (postings.length === 0) {
    await writeFile(join(dir, 'postings', 'none.jsonl'), '');
    postings.push({ path: 'postings/none.jsonl', source: 'none', rows: 0, bytes: 0, sha256: sha('') });
  }
  let withdrawals = null;
  if (spec.withdrawals?.length) {
    const text =
      spec.withdrawals
        .map((w) => JSON.stringify({ source: w.source, source_posting_id: w.id, reason: w.reason ?? 'spam', requested_at: finished }))
        .join('\n') + '\n';
    await writeFile(join(dir, 'withdrawals.jsonl'), text);
    withdrawals = { path: 'withdrawals.jsonl', rows: spec.withdrawals.length, sha256: sha(text) };
  }
  let registry = null;
  if (spec.registry) {
    await mkdir(join(dir, 'registry'), { recursive: true });
    await writeFile(join(dir, 'registry', 'release.json'), JSON.stringify({ release_id: spec.registry.release_id, released_at: finished }));
    const text = spec.registry.companies
      .map((c) =>
        JSON.stringify({
          status: c.merged_into ? 'inactive' : 'active',
          country: 'US',
          industry: 'Logistics',
          employee_range: '201-500',
          domain: null,
          merged_into: null,
          ...c,
        }),
      )
      .join('\n');
    await writeFile(join(dir, 'registry', 'companies.jsonl'), text + '\n');
    registry = { path: 'registry', release_id: spec.registry.release_id, companies: spec.registry.companies.length };
  }
  const manifest = {
    format: 'jps-delivery/1',
    day,
    cutoff,
    reads: { path: 'reads.jsonl', rows: reads.length, sha256: sha(reads.join('\n') + '\n') },
    postings,
    withdrawals,
    registry,
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}
