// Compression of JSON answers (and of the pages' text: HTML, scripts, styles, the contract): brotli or
// gzip as Accept-Encoding asks, at levels that cost little CPU (chosen by bench/compression.ts; figures in
// bench/README.md). Small bodies, HEAD answers and anything else (export files are gzip or Parquet
// already, and keep their Content-Length and ranges) go as they are. The answer is settled before its
// first byte as before (http/metering.ts): compression only changes the bytes after that, and a
// connection cut before the last compressed byte still refunds.

import { constants } from 'node:zlib';
import compression from 'compression';
import type { Request, Response } from 'express';

/** gzip level and brotli quality: see "Compression" in bench/README.md for the figures that chose them. */
export const GZIP_LEVEL = 4;
export const BROTLI_QUALITY = 4;
/** Below this many bytes a body is sent as it is: compressing would save less than it costs. */
export const THRESHOLD_BYTES = 1024;

const isText = (res: Response) =>
  /^(?:application\/(?:[\w.-]+\+)?json|text\/(?:html|css|javascript|yaml|csv)|application\/javascript)\b/i.test(
    String(res.getHeader('Content-Type') ?? ''),
  );

export function compressJson() {
  return compression({
    filter: (_req: Request, res: Response) => isText(res),
    threshold: THRESHOLD_BYTES,
    level: GZIP_LEVEL,
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
}
