import { expect } from 'chai';
import { ApiError } from '../../src/errors.js';
import { QueryEngine } from '../../src/db/engine.js';
import { listValue } from '@duckdb/node-api';

describe('the query engine', () => {
  it('interrupts a query that runs past the time limit and answers 504 query_timeout', async () => {
    const engine = await QueryEngine.open({ timeoutMs: 100 });
    try {
      const started = performance.now();
      let error: unknown;
      try {
        await engine.rows('SELECT count(*) FROM range(1000000000000) a');
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ApiError);
      expect((error as ApiError).code).to.equal('query_timeout');
      expect((error as ApiError).status).to.equal(504);
      expect(performance.now() - started).to.be.below(5_000);
      // The connection is usable again afterwards.
      expect(await engine.rows('SELECT 42')).to.deep.equal([[42]]);
    } finally {
      engine.close();
    }
  });

  it('runs more concurrent queries than it has connections by queueing them', async () => {
    const engine = await QueryEngine.open({ timeoutMs: 10_000, connections: 2 });
    try {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => engine.rows('SELECT $n::INTEGER * 2', { n: i })));
      expect(results.map((r) => r[0]![0])).to.deep.equal([0, 2, 4, 6, 8, 10, 12, 14]);
    } finally {
      engine.close();
    }
  });

  it('marks exactly the document numbers a query returns, at every bit of a byte and at both ends', async () => {
    const engine = await QueryEngine.open({ timeoutMs: 10_000 });
    try {
      for (const size of [1, 7, 8, 9, 1000, 4099]) {
        const wanted = Array.from({ length: size }, (_, i) => i).filter((i) => i % 3 === 0 || i % 7 === 1 || i === size - 1);
        const marks = new Uint8Array(size);
        await engine.mark('SELECT unnest($docs::INTEGER[]) AS doc', { docs: listValue(wanted) }, marks);
        expect(
          Array.from(marks.keys()).filter((i) => marks[i] === 1),
          `size ${size}`,
        ).to.deep.equal(wanted);
      }
      const none = new Uint8Array(10);
      await engine.mark('SELECT 1 AS doc WHERE false', {}, none);
      expect(none.every((m) => m === 0)).to.equal(true);
    } finally {
      engine.close();
    }
  });

  it('runs a catalog that fits in one row group on one thread, a larger one on its threads', async () => {
    const engine = await QueryEngine.open({ timeoutMs: 10_000, threads: 2 });
    const threads = async () => Number((await engine.rows("SELECT current_setting('threads')"))[0]![0]);
    try {
      await engine.fitThreads(122_879);
      expect(await threads()).to.equal(1);
      await engine.fitThreads(122_880);
      expect(await threads()).to.equal(2);
      await engine.fitThreads(60);
      expect(await threads()).to.equal(1);
    } finally {
      engine.close();
    }
  });
});
