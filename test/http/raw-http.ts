// A raw HTTP/1.1 client over node:net for the tests that send what no HTTP client would: malformed
// requests, bad chunk sizes, bodies declared and never sent, pipelined requests on one connection.

import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: Socket;
  /** Writes bytes as they are. */
  send(bytes: string | Buffer): void;
  /** Resolves with the next `count` complete responses; rejects if the connection ends first. */
  responses(count: number, timeoutMs?: number): Promise<RawResponse[]>;
  /** Resolves once the server has closed the connection: 'end' (FIN) or 'reset'. */
  closed: Promise<'end' | 'reset'>;
}

/** Parses the complete responses at the head of `buffer`; returns them and the bytes left over. */
function parse(buffer: Buffer): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let rest = buffer;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    let next: number;
    if (headers['transfer-encoding'] === 'chunked') {
      const chunks: Buffer[] = [];
      let at = end + 4;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd < 0) return { responses, rest };
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (rest.length < lineEnd + 2 + size + 2) return { responses, rest };
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
      next = at;
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (rest.length < end + 4 + length) break;
      body = rest.subarray(end + 4, end + 4 + length);
      next = end + 4 + length;
    }
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') });
    rest = rest.subarray(next);
  }
  return { responses, rest };
}

export async function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((done, fail) => {
    socket.once('connect', done);
    socket.once('error', fail);
  });
  let buffer: Buffer = Buffer.alloc(0);
  const ready: RawResponse[] = [];
  let wake: (() => void) | undefined;
  let ended: 'end' | 'reset' | undefined;
  const closed = new Promise<'end' | 'reset'>((done) => {
    socket.on('error', () => {
      ended = 'reset';
      done('reset');
      wake?.();
    });
    socket.on('close', () => {
      ended ??= 'end';
      done(ended);
      wake?.();
    });
  });
  socket.on('data', (chunk: Buffer) => {
    const parsed = parse(Buffer.concat([buffer, chunk]));
    buffer = parsed.rest;
    ready.push(...parsed.responses);
    wake?.();
  });
  return {
    socket,
    closed,
    send: (bytes) => void socket.write(bytes),
    async responses(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (ready.length < count) {
        if (ended) throw new Error(`connection closed (${ended}) after ${ready.length} of ${count} responses`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no complete response within ${timeoutMs} ms (${ready.length} of ${count})`);
        await new Promise<void>((done) => {
          const timer = setTimeout(done, left);
          wake = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
      return ready.splice(0, count);
    },
  };
}

/** One request on a new connection: the first response, then the connection is closed by the client. */
export async function exchange(
  url: string,
  bytes: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawResponse & { closed: Promise<'end' | 'reset'> }> {
  const conn = await open(url);
  conn.send(bytes);
  try {
    const [response] = await conn.responses(1, timeoutMs);
    return { ...response!, closed: conn.closed };
  } finally {
    setTimeout(() => conn.socket.destroy(), 200).unref();
  }
}

/** A GET request's bytes. */
export function get(path: string, headers: Record<string, string> = {}): string {
  return `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}
