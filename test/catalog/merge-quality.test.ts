import { expect } from 'chai';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { mergeReport } from '../../src/catalog/merge-report.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { tempDir } from '../support/app.js';

describe('merge and occupation quality on a generated corpus', function () {
  this.timeout(180_000);

  it('keeps pairwise precision and recall of "same job", occupation accuracy, pay and skills read in descriptions above their floors, day after day', async () => {
    const root = await tempDir('merge');
    const corpus = join(root, 'corpus');
    await generateCorpus({ jobs: 3000, seed: 42, days: 4, start: '2026-11-18' }, corpus, { workers: 0 });
    const dirs = { snapshotsDir: join(root, 'snapshots'), dataDir: join(root, 'data') };
    for (const day of ['day-001', 'day-002', 'day-003', 'day-004']) {
      await publish({ input: join(corpus, day), ...dirs, quiet: true, memoryLimit: '1GB' });
      const report = await mergeReport(join(corpus, day), dirs.snapshotsDir);
      // Targets on the demo corpus are 99.5 % and 98 % (docs/catalog.md); a small corpus is noisier.
      expect(report.precision, `${day} precision`).to.be.at.least(0.99);
      expect(report.recall, `${day} recall`).to.be.at.least(0.96);
      expect(report.company_links.linked_wrong, `${day} wrong company links`).to.equal(0);
      expect(report.postings).to.be.greaterThan(3000);
      // The floors (docs/data-quality.md): 97 % at the detailed SOC code, 99 % at the major group.
      expect(report.occupations.jobs, `${day} jobs with a truth code`).to.equal(report.jobs);
      expect(report.occupations.detailed_accuracy, `${day} detailed codes`).to.be.at.least(0.97);
      expect(report.occupations.major_accuracy, `${day} major groups`).to.be.at.least(0.99);
      // The fallback for a title naming no occupation, measured as if no title named one: its description alone.
      expect(report.occupations.from_description.jobs, `${day} descriptions read`).to.be.greaterThan(2500);
      expect(report.occupations.from_description.detailed_accuracy, `${day} codes from descriptions`).to.be.at.least(0.97);
      // Pay read in descriptions: precision at least 99 % (the floor), over every job and over those whose
      // postings publish none.
      for (const [label, r] of [
        ['all', report.description_pay],
        ['alone', report.description_pay.alone],
      ] as const) {
        expect(r.stated, `${day} ${label}: jobs whose descriptions state pay`).to.be.greaterThan(10);
        expect(r.precision, `${day} ${label} precision`).to.be.at.least(0.99);
        expect(r.recall, `${day} ${label} recall`).to.be.at.least(0.95);
      }
      // Skills read in descriptions: precision and recall at least 95 % (the floors), over nearly every job.
      expect(report.skills.jobs, `${day} jobs compared for skills`).to.be.greaterThan(report.jobs * 0.95);
      expect(report.skills.stated, `${day} skills written`).to.be.greaterThan(report.jobs);
      expect(report.skills.precision, `${day} skills precision`).to.be.at.least(0.95);
      expect(report.skills.recall, `${day} skills recall`).to.be.at.least(0.95);
      // Ghost jobs (listed_by_employer=false): the targets (95 %) are measured on the demo corpus over a week
      // (docs/data-quality.md); this corpus has some 60 ghosts a day, so its floors are lower. Recall grows
      // with the days of reads behind the catalog: a posting gone from a board read only in part is flagged
      // after two days.
      const ghosts = report.listed_by_employer;
      expect(ghosts.agreement, `${day} listed_by_employer agreement`).to.be.at.least(0.98);
      if (ghosts.extracted > 0) expect(ghosts.precision, `${day} ghost precision`).to.be.at.least(0.9);
      if (day !== 'day-001') expect(ghosts.recall, `${day} ghost recall`).to.be.at.least(0.8);
      expect(report.reposts.agreement, `${day} reposts`).to.be.at.least(0.99);
    }
  });
});
