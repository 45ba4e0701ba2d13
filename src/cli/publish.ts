// `publish` and `merge-report`: one publication from a day's delivery, and its quality against the truth.

import { JSON_OPTION, type Command } from './command.js';
import { print } from './output.js';

export const publishCommand: Command = {
  name: 'publish',
  summary: 'Publishes one day of collected postings as a new immutable catalog snapshot (and its company registry release, if any).',
  options: [
    { name: 'input', value: 'DIR/day-K', required: true, help: 'a day folder of a delivery (see docs/corpus.md)' },
    { name: 'memory-limit', value: 'size', help: 'DuckDB memory before spilling to disk (default 4GB)' },
    {
      name: 'skip-serving-files',
      boolean: true,
      help: 'publish without the job documents, text indexes and change feed: each server builds them into its cache as it opens the publication',
    },
    JSON_OPTION,
  ],
  settings: ['snapshotsDir', 'dataDir', 'objectStore'],
  async run({ options, config, json }) {
    const { publish } = await import('../catalog/publish/publish.js');
    const summary = await publish({
      input: options.input as string,
      snapshotsDir: config.snapshotsDir,
      dataDir: config.dataDir,
      objectStore: config.objectStore,
      ...(typeof options['memory-limit'] === 'string' ? { memoryLimit: options['memory-limit'] } : {}),
      ...(options['skip-serving-files'] === true ? { servingFiles: false } : {}),
    });
    print(json, summary, () => {
      const c = summary.counts;
      if (summary.status === 'already_published') return `Watermark ${summary.watermark} is already published; nothing to do.`;
      return [
        `Published ${summary.watermark} (previous ${summary.previous_watermark ?? 'none'}, registry ${summary.registry_release ?? 'none'})`,
        `  jobs      ${c.jobs.toLocaleString('en-US')} (current ${c.by_currentness.current}, uncertain ${c.by_currentness.uncertain}, not current ${c.by_currentness.not_current})`,
        `  postings  ${c.postings.toLocaleString('en-US')}`,
        `  events    created ${c.events.created}, updated ${c.events.updated}, expired ${c.events.expired}`,
        `  merged    ${c.merged} jobs absorbed into others (${c.redirects} redirects in all)`,
        `  withdrawn ${c.withdrawn}`,
        `  took ${summary.duration_s} s, peak memory ${summary.peak_rss_gib} GiB`,
      ].join('\n');
    });
  },
};

const percent = (share: number) => `${(share * 100).toFixed(2)} %`;
const accuracyLine = (a: { jobs: number; unclassified: number; detailed_accuracy: number; major_accuracy: number }) =>
  `${percent(a.detailed_accuracy)} at the detailed SOC code, ${percent(a.major_accuracy)} at the major group, ` +
  `${a.unclassified} unclassified (of ${a.jobs.toLocaleString('en-US')} jobs)`;
const payLine = (r: { stated: number; extracted: number; right: number; precision: number; recall: number }) =>
  `precision ${percent(r.precision)} (${r.right} of ${r.extracted} read right), recall ${percent(r.recall)} (of ${r.stated} stated)`;

export const mergeReportCommand: Command = {
  name: 'merge-report',
  summary:
    "Compares a published day with the ground truth of its delivery: pairwise precision and recall of 'same job', company links, occupation codes, pay and skills read in descriptions, ghost jobs and reposts.",
  options: [
    { name: 'input', value: 'DIR/day-K', required: true, help: 'the day folder that was published' },
    { name: 'examples', value: 'n', help: 'how many split openings and mixed jobs to list (default 5)' },
    JSON_OPTION,
  ],
  settings: ['snapshotsDir'],
  async run({ options, config, json }) {
    const { mergeReport } = await import('../catalog/merge-report.js');
    const report = await mergeReport(options.input as string, config.snapshotsDir, Number(options.examples ?? 5));
    print(json, report, () =>
      [
        `Merge of ${report.watermark}: ${report.postings.toLocaleString('en-US')} postings, ${report.openings.toLocaleString('en-US')} openings, ${report.jobs.toLocaleString('en-US')} jobs`,
        `  precision ${(report.precision * 100).toFixed(2)} %  (${report.pairs.true_positive} of ${report.pairs.predicted} merged pairs are one opening)`,
        `  recall    ${(report.recall * 100).toFixed(2)} %  (${report.pairs.true_positive} of ${report.pairs.actual} same-opening pairs merged)`,
        `  companies ${report.company_links.linked_right} of ${report.company_links.linkable} linkable postings linked right, ${report.company_links.linked_wrong} linked wrong`,
        `  occupations ${accuracyLine(report.occupations)}`,
        ...report.examples.occupation_errors.map((e) => `    ${e.jobs} x ${e.truth} published as ${e.published ?? 'none'}: "${e.example}"`),
        `    from the description alone (the fallback for a title naming none): ${accuracyLine(report.occupations.from_description)}`,
        `  description pay ${payLine(report.description_pay)}`,
        `    of jobs without posted pay: ${payLine(report.description_pay.alone)}`,
        `  skills precision ${percent(report.skills.precision)} (${report.skills.right} of ${report.skills.extracted} read right), ` +
          `recall ${percent(report.skills.recall)} (of ${report.skills.stated} written, in ${report.skills.jobs.toLocaleString('en-US')} jobs)`,
        ...report.examples.skill_errors.map(
          (e) => `    ${e.jobs} x ${e.skill} ${e.kind === 'extra' ? 'read but not written' : 'written but not read'}`,
        ),
        `  listed_by_employer=false (ghost jobs) precision ${percent(report.listed_by_employer.precision)} ` +
          `(${report.listed_by_employer.right} of ${report.listed_by_employer.extracted} flagged), recall ${percent(report.listed_by_employer.recall)} ` +
          `(of ${report.listed_by_employer.stated}); every value agrees in ${percent(report.listed_by_employer.agreement)} of ${report.listed_by_employer.jobs.toLocaleString('en-US')} jobs`,
        `  reposts agree in ${percent(report.reposts.agreement)} of jobs (${report.reposts.reposted} reposted)`,
      ].join('\n'),
    );
  },
};
