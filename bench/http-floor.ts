// The floor under a request (issue 24): what node:http alone, and Express 5 with and without a stack of
// middleware that does nothing, cost the main thread a request on this machine, answering a 3 KB JSON
// body over keep-alive (or one of --body-kb, as a page of 50's 135), measured as bench/run.ts measures
// the API (bench/measure.ts: closed-loop clients, the server's CPU from /proc). Each server runs in a
// process of its own.
//
//   npm run bench:http-floor -- [--seconds 4] [--middlewares 15] [--body-kb 3]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import express from 'express';
import { measure } from './measure.js';
import { stoppedWithBench } from './children.js';

/** A JSON body of about `kb` kilobytes. */
const body = (kb: number) => Buffer.from(JSON.stringify({ data: { text: 'x'.repeat(Math.max(0, kb * 1000 - 20)) } }));

type Kind = 'node:http' | 'express' | 'express+stack';

/** Serves the body at /x with `kind` and prints its url; runs until killed. */
function serve(kind: Kind, middlewares: number, kb: number): void {
  const BODY = body(kb);
  const listening = (server: ReturnType<typeof createServer>) =>
    server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
  if (kind === 'node:http') {
    listening(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
        res.end(BODY);
      }),
    );
    return;
  }
  const app = express();
  if (kind === 'express+stack') for (let i = 0; i < middlewares; i++) app.use((_req, _res, next) => next());
  app.get('/x', (_req, res) => {
    res.type('json').send(BODY);
  });
  listening(createServer(app));
}

async function run(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '4' },
      middlewares: { type: 'string', default: '15' },
      'body-kb': { type: 'string', default: '3' },
    },
  });
  const seconds = Number(values.seconds);
  const rows: string[] = [];
  for (const kind of ['node:http', 'express', 'express+stack'] as Kind[]) {
    const child = stoppedWithBench(
      spawn(process.execPath, ['--import', 'tsx', 'bench/http-floor.ts', '--serve', kind, values.middlewares, values['body-kb']], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const url = `${line.toString().trim()}/x`;
    try {
      for (const connections of [1, 4]) {
        await measure(() => ({ url, method: 'GET' }), { connections, seconds: 2 });
        const m = await measure(() => ({ url, method: 'GET' }), { connections, seconds, pid: child.pid });
        const name = kind === 'express+stack' ? `express + ${values.middlewares} middleware` : kind;
        rows.push(
          `| ${name} | ${connections} | ${m.medianMs.toFixed(3)} | ${Math.round(m.requestsPerSecond)} | ${m.mainCpuMsPerRequest?.toFixed(3) ?? '?'} |`,
        );
      }
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  }
  process.stdout.write(['| Server | Clients | Median ms | req/s | Main CPU ms |', '|---|---|---|---|---|', ...rows].join('\n') + '\n');
}

const at = process.argv.indexOf('--serve');
if (at >= 0) serve(process.argv[at + 1] as Kind, Number(process.argv[at + 2]), Number(process.argv[at + 3]));
else await run();
