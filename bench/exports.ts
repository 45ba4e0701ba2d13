// The change feed and export benchmarks (issue 5), over HTTP against the server under benchmark.
// - feed cursors: resume cursors at several depths of the log, so the feed scenario reads pages from
//   the start, the middle and further on, not only the first page;
// - exports: POST an export of `records` full jobs, poll until it completes; time from its creation to
//   its completion (the server's created_at → completed_at, which includes the queue; the status is
//   polled once a second, as the account's request window allows), the run alone (started_at →
//   completed_at), compressed MB/s, and the server's resident memory sampled every 20 ms meanwhile
//   (peak, and its rise over the idle server).

import { readFileSync } from 'node:fs';
import type { BenchService } from './service.js';

const rssMib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function call<T>(service: BenchService, method: string, path: string, body?: unknown, key = service.key): Promise<T> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * `since` for the whole log, then resume cursors after 10, 100 and 500 pages of 1,000 (as far as the log
 * goes). The pages are read with the bench accounts in turn (a feed cursor is not bound to an account).
 */
export async function feedStarts(service: BenchService): Promise<string[]> {
  const starts = ['since=2000-01-01T00:00:00Z'];
  let query = starts[0]!;
  for (let page = 1; page <= 500; page++) {
    const body = await call<{ resume_cursor: string; has_more: boolean }>(
      service,
      'GET',
      `/v1/jobs/changes?${query}&limit=1000`,
      undefined,
      service.keys[page % service.keys.length],
    );
    if (!body.has_more) break;
    query = `after=${encodeURIComponent(body.resume_cursor)}`;
    if (page === 10 || page === 100 || page === 500) starts.push(query);
  }
  return starts;
}

export interface ExportRun {
  records: number;
  files: number;
  compressed_mb: number;
  /** The server's created_at to completed_at: the POST's work, the queue and the run. */
  seconds: number;
  /** The server's started_at to completed_at. */
  server_seconds: number;
  mb_per_s: number;
  rss_before_mib: number;
  rss_peak_mib: number;
}

interface ExportRecord {
  export_id: string;
  status: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  record_count: number | null;
  files: { bytes: number }[];
  error: string | null;
}

export async function benchExport(service: BenchService, records: number): Promise<ExportRun> {
  const before = rssMib(service.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMib(service.pid))), 20);
  try {
    let record = await call<ExportRecord>(service, 'POST', '/v1/jobs/exports', {
      currentness: ['current', 'uncertain', 'not_current'],
      max_records: records,
    });
    while (record.status === 'queued' || record.status === 'running') {
      await new Promise((r) => setTimeout(r, 1000));
      record = await call<ExportRecord>(service, 'GET', `/v1/jobs/exports/${record.export_id}`);
    }
    const seconds = (Date.parse(record.completed_at!) - Date.parse(record.created_at)) / 1000;
    if (record.status !== 'completed') throw new Error(`export ${record.export_id} ended ${record.status}: ${record.error}`);
    const bytes = record.files.reduce((n, f) => n + f.bytes, 0);
    return {
      records: record.record_count!,
      files: record.files.length,
      compressed_mb: bytes / 1e6,
      seconds,
      server_seconds: (Date.parse(record.completed_at!) - Date.parse(record.started_at!)) / 1000,
      mb_per_s: bytes / 1e6 / seconds,
      rss_before_mib: before,
      rss_peak_mib: peak,
    };
  } finally {
    clearInterval(sampler);
  }
}
