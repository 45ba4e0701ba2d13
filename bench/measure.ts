// One measured run: closed-loop clients over keep-alive connections, timing each request with hrtime.
// Requests go through undici, whose client costs a request 15-20 % less CPU than node:http's (measured
// side by side, bench/README.md): the load generator shares the server's two cores.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';

export interface BenchRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
}

export interface Measurement {
  connections: number;
  medianMs: number;
  p99Ms: number;
  requestsPerSecond: number;
  requests: number;
  failures: number;
  /** Median of the time the server spent answering from the catalog (its Server-Timing header), if it sends one. */
  catalogMedianMs: number | null;
  /** Median of the time metering added (Server-Timing meter: admission and charging), where reported. */
  meterMedianMs: number | null;
  /**
   * Median over the 200 responses that report a catalog time of the whole request less that time: what
   * HTTP, the key, validation, metering and the body cost on top of the catalog (issue 24's overhead).
   */
  overheadMedianMs: number | null;
  /**
   * The server's CPU time a request over the run (every thread of its process; and its main thread alone,
   * where the HTTP path, the metering and the embedded store run), when its process id was given: what
   * bounds its requests a second on two cores, and steadier than latency on a shared machine.
   */
  cpuMsPerRequest: number | null;
  mainCpuMsPerRequest: number | null;
}

/** Clock ticks a second, the unit of /proc's CPU times. */
let clockTicks: number | undefined;

/** CPU time used so far, in ms, by process `pid` (every thread) and by its main thread; null off Linux. */
export function cpuMs(pid: number): { process: number; main: number } | null {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    // utime and stime are fields 14 and 15; the command name before them, in parentheses, may hold spaces.
    const used = (path: string) => {
      const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks!;
    };
    return { process: used(`/proc/${pid}/stat`), main: used(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return null;
  }
}

/** What a response says that a run counts: its status, and the times its Server-Timing header reports. */
interface Reply {
  status: number;
  catalogMs: number | null;
  meterMs: number | null;
}

const SERVER_TIMING = 'server-timing';

/**
 * Sends one request and reads its status and Server-Timing header, the body discarded as it comes.
 * Through undici's `dispatch` and a handler of callbacks rather than `request`, which wraps each
 * response in a readable stream and promises the client does not need: less of the cores the server
 * shares (bench/README.md, "The load generator").
 */
function send(agent: Agent, req: BenchRequest): Promise<Reply> {
  // The origin and the path, split without parsing the URL (a URL without a path asks for /).
  const slash = req.url.indexOf('/', req.url.indexOf('//') + 2);
  const origin = slash < 0 ? req.url : req.url.slice(0, slash);
  const path = slash < 0 ? '/' : req.url.slice(slash);
  return new Promise((resolve, reject) => {
    let status = 0;
    let timing = '';
    agent.dispatch(
      { origin, path, method: req.method, headers: req.headers, body: req.body ?? null },
      {
        onConnect: () => {},
        onError: reject,
        onHeaders: (statusCode, headers) => {
          status = statusCode;
          for (let i = 0; i < headers.length; i += 2) {
            const name = headers[i]!;
            if (name.length === SERVER_TIMING.length && name.toString('latin1').toLowerCase() === SERVER_TIMING)
              timing += `${timing ? ', ' : ''}${headers[i + 1]!.toString('latin1')}`;
          }
          return true;
        },
        onData: () => true,
        onComplete: () => {
          const catalog = /catalog;dur=([\d.]+)/.exec(timing);
          const meter = /meter;dur=([\d.]+)/.exec(timing);
          resolve({ status, catalogMs: catalog ? Number(catalog[1]) : null, meterMs: meter ? Number(meter[1]) : null });
        },
      },
    );
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Requests sent with one key before the next: a client's burst, within its account's window of 60 a minute. */
export const RUN_PER_KEY = 50;
/** Where each list of keys stands, carried on from one measurement to the next: the key in use and its requests. */
const turns = new WeakMap<string[], { key: number; sent: number }>();

/**
 * `next` gives each request (a fixed one, or the next of a seeded mix). A request with an authorization
 * header is sent with one of `keys`, `perKey` requests each (RUN_PER_KEY by default) in turn, carried on
 * from one measurement to the next, so that no account's request window fills up.
 */
export async function measure(
  next: () => BenchRequest,
  options: { connections: number; seconds: number; keys?: string[]; perKey?: number; pid?: number },
): Promise<Measurement> {
  const perKey = options.perKey ?? RUN_PER_KEY;
  const keyed = (req: BenchRequest): BenchRequest => {
    const keys = options.keys;
    if (!keys || !req.headers?.authorization) return req;
    let turn = turns.get(keys);
    if (!turn) turns.set(keys, (turn = { key: 0, sent: 0 }));
    if (turn.sent >= perKey) turn = { key: turn.key + 1, sent: 0 };
    turn.sent++;
    turns.set(keys, turn);
    return { ...req, headers: { ...req.headers, authorization: `Bearer ${keys[turn.key % keys.length]}` } };
  };
  const agent = new Agent({ connections: options.connections });
  const latencies: number[] = [];
  const catalog: number[] = [];
  const meter: number[] = [];
  const overhead: number[] = [];
  let failures = 0;
  const cpuBefore = options.pid === undefined ? null : cpuMs(options.pid);
  const started = performance.now();
  const until = started + options.seconds * 1000;
  const client = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const { status, catalogMs, meterMs } = await send(agent, keyed(next())).catch(() => ({ status: 0, catalogMs: null, meterMs: null }));
      const latency = performance.now() - t0;
      latencies.push(latency);
      if (catalogMs !== null) catalog.push(catalogMs);
      if (catalogMs !== null && status === 200) overhead.push(latency - catalogMs);
      if (meterMs !== null) meter.push(meterMs);
      if (status < 200 || status >= 300) failures++;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = options.pid === undefined ? null : cpuMs(options.pid);
  await agent.close();
  latencies.sort((a, b) => a - b);
  const median = (list: number[]) =>
    list.length > 0
      ? percentile(
          list.sort((a, b) => a - b),
          50,
        )
      : null;
  return {
    connections: options.connections,
    medianMs: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requestsPerSecond: latencies.length / elapsed,
    requests: latencies.length,
    failures,
    catalogMedianMs: median(catalog),
    meterMedianMs: median(meter),
    overheadMedianMs: median(overhead),
    cpuMsPerRequest: cpuBefore && cpuAfter ? (cpuAfter.process - cpuBefore.process) / latencies.length : null,
    mainCpuMsPerRequest: cpuBefore && cpuAfter ? (cpuAfter.main - cpuBefore.main) / latencies.length : null,
  };
}
