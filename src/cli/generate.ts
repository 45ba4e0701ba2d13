// `generate`: writes a synthetic collector delivery (postings per source and day, reads, withdrawals, registry releases).

import type { CorpusSummary } from '../catalog/generator/corpus.js';
import { DEFAULT_START } from '../catalog/generator/options.js';
import { JSON_OPTION, UsageError, type Command } from './command.js';
import { print } from './output.js';

function integer(value: unknown, name: string, min: number, max: number): number {
  const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}; got "${String(value)}"`);
  return number;
}

function human(summary: CorpusSummary): string {
  const lines = [
    `wrote ${summary.out}: ${summary.days} day(s) from ${summary.start}, seed ${summary.seed}`,
    `  ${summary.openings.toLocaleString('en-US')} openings at ${summary.companies.toLocaleString('en-US')} companies (${summary.registered_companies.toLocaleString('en-US')} in the registry)`,
    `  ${summary.postings.toLocaleString('en-US')} postings, ${(summary.bytes / 1048576).toFixed(1)} MiB, in ${summary.elapsed_s} s, peak RSS ${summary.peak_rss_mb} MiB`,
  ];
  for (const day of summary.per_day) {
    lines.push(
      `  ${day.path}: ${day.postings.toLocaleString('en-US')} postings, ${day.reads.toLocaleString('en-US')} reads (${day.partialReads} partial), ${day.withdrawals} withdrawals${day.registryCompanies === null ? '' : `, registry release of ${day.registryCompanies.toLocaleString('en-US')} companies`}`,
    );
  }
  return lines.join('\n');
}

export const generate: Command = {
  name: 'generate',
  summary: 'Generates a realistic corpus of job postings as collectors would deliver it over several days. Same arguments, same bytes.',
  options: [
    { name: 'jobs', value: 'n', required: true, help: 'openings listed on day 1; about 3% more appear and 2.5% close each day' },
    { name: 'seed', value: 'n', help: 'random seed (default 1)' },
    { name: 'days', value: 'n', help: 'number of daily deliveries (default 1)' },
    { name: 'out', value: 'dir', required: true, help: 'folder to write; must be empty or absent unless --force' },
    { name: 'start', value: 'YYYY-MM-DD', help: `date of day 1 (default ${DEFAULT_START})` },
    { name: 'workers', value: 'n', help: 'worker threads (default one per core, at most 4; 0 runs on the main thread)' },
    { name: 'force', boolean: true, help: 'replace a non-empty --out folder' },
    JSON_OPTION,
  ],
  async run({ options, json }) {
    const start = typeof options.start === 'string' ? options.start : DEFAULT_START;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || Number.isNaN(Date.parse(`${start}T00:00:00Z`)))
      throw new UsageError(`--start must be a date YYYY-MM-DD; got "${start}"`);
    const generation = {
      jobs: integer(options.jobs, 'jobs', 1, 50_000_000),
      seed: options.seed === undefined ? 1 : integer(options.seed, 'seed', 0, 2 ** 32 - 1),
      days: options.days === undefined ? 1 : integer(options.days, 'days', 1, 365),
      start,
    };
    const workers = options.workers === undefined ? undefined : integer(options.workers, 'workers', 0, 64);
    const { generateCorpus, OutputExistsError } = await import('../catalog/generator/corpus.js');
    try {
      const summary = await generateCorpus(generation, String(options.out), {
        force: options.force === true,
        ...(workers === undefined ? {} : { workers }),
        onProgress: (p) =>
          process.stderr.write(
            `generate: day ${p.day}/${generation.days}, ${p.postings.toLocaleString('en-US')} postings, ${(p.bytes / 1048576).toFixed(0)} MiB, ${(p.elapsedMs / 1000).toFixed(1)} s\n`,
          ),
      });
      print(json, summary, () => human(summary));
    } catch (error) {
      if (error instanceof OutputExistsError) throw new UsageError(error.message);
      throw error;
    }
  },
};
