import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const COUNTER = fileURLToPath(new URL('../../src/jobs/trend-count.ts', import.meta.url));

describe('the counter of a trend, in a process of its own', function () {
  this.timeout(60_000);

  it('waits for its worker thread’s half while counting, and lets the process end after', async () => {
    // Ten marked versions of span 0, counted half by the worker: the process must print the whole count
    // and exit without being told to stop the worker.
    const script = `
      import { Counter, shared } from ${JSON.stringify(COUNTER)};
      const counter = new Counter(1);
      const span = shared(Uint16Array, 10);
      const marked = shared(Uint8Array, 10).fill(1);
      const counts = await counter.count({ kind: 'spans', cells: 2, span, marked });
      console.log(JSON.stringify({ counts: Array.from(counts), shared: counter.sharedTasks }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).to.deep.equal({ counts: [10, 0], shared: 1 });
  });
});
