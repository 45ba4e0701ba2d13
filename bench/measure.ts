// One measured run: closed-loop clients over keep-alive connections, timing each request with hrtime.

import { Agent, request as httpRequest } from 'node:http';

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
}

function send(agent: Agent, req: BenchRequest): Promise<number> {
  return new Promise((done, fail) => {
    const r = httpRequest(req.url, { method: req.method, headers: req.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    r.on('error', fail);
    r.end(req.body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `next` gives each request (a fixed one, or the next of a seeded mix). */
export async function measure(next: () => BenchRequest, options: { connections: number; seconds: number }): Promise<Measurement> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const until = started + options.seconds * 1000;
  const client = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const status = await send(agent, next()).catch(() => 0);
      latencies.push(performance.now() - t0);
      if (status < 200 || status >= 300) failures++;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    connections: options.connections,
    medianMs: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requestsPerSecond: latencies.length / elapsed,
    requests: latencies.length,
    failures,
  };
}
