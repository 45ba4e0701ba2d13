// The export routes (spec 4.8): create, list, one, and file downloads with Range support, streamed
// from the object store on any server.

import type { Request, Response } from 'express';
import { ApiError } from '../../errors.js';
import { exportRecord } from '../../exports/exports.js';
import { callerOf } from '../auth.js';
import type { AppContext } from '../../context.js';
import { charge, sendJson, ticketOf } from '../metering.js';
import { refused } from '../../metering/refusals.js';
import { idempotencyKeyOf, markReplayed } from '../idempotency-key.js';
import { requestIdOf } from '../request-id.js';
import type { ByteRange } from '../../storage/object-store.js';

export function exportHandlers(ctx: AppContext) {
  return {
    create: async (req: Request, res: Response): Promise<void> => {
      const caller = callerOf(res);
      // The request's records are charged when the export completes (or not at all if it fails): its
      // ledger row stays pending from here, even if the client goes away before the export is created.
      const ticket = ticketOf(res);
      if (ticket && !(await ctx.meter.defer(ticket))) throw refused(ticket.refusal!, ticket);
      let created: { record: Record<string, unknown>; replayed: boolean };
      try {
        // The export's reservation takes records of the month: none are charged in memory meanwhile (ADR 0013).
        created = await ctx.meter.reserving(caller, () =>
          ctx.exports.create(caller, req.body, requestIdOf(res), idempotencyKeyOf(req, 'POST /v1/jobs/exports')),
        );
      } catch (error) {
        // Settled before the error is written; a failing store leaves the row to the next start's sweep.
        if (ticket) {
          await ctx.meter
            .settle(ticket, { status: error instanceof ApiError ? error.status : 500, records: 0 })
            .catch((failure: unknown) =>
              ctx.logger.error({ err: failure, request_id: requestIdOf(res) }, 'settling a refused export request failed'),
            );
        }
        throw error;
      }
      const { record, replayed } = created;
      // A replay creates nothing: its request is settled now, not charged (the first one's export charges once).
      if (replayed && ticket) await ctx.meter.settle(ticket, { status: 202, records: 0, void: true });
      markReplayed(res, replayed);
      res
        .status(202)
        .location(`/v1/jobs/exports/${record.export_id as string}`)
        .json(record);
    },

    list: async (_req: Request, res: Response): Promise<void> => {
      await sendJson(ctx, res, { data: await ctx.exports.list(callerOf(res).account.account_id) });
    },

    one: async (req: Request, res: Response): Promise<void> => {
      await sendJson(ctx, res, exportRecord(await ctx.exports.get(callerOf(res).account.account_id, String(req.params.exportId))));
    },

    /**
     * The file as the object store holds it, streamed from whichever server answers: Range (206, one
     * range), HEAD, and If-Range (no validators to match: the whole file) as express's sendFile answered
     * them. What can fail (the object missing, a range outside it) is decided before the request is
     * settled, so that the ledger holds the status the client gets.
     */
    file: async (req: Request, res: Response): Promise<void> => {
      const n = /^[1-9]\d{0,5}$/.test(String(req.params.n)) ? Number(req.params.n) : 0;
      if (n === 0) throw new ApiError('file_not_found', 'n is the number of a file of the export, from 1.');
      const file = await ctx.exports.file(callerOf(res).account.account_id, String(req.params.exportId), n);
      const bytes = file.file.bytes;
      const stored = await ctx.exports.files.size(file.key).catch((error: unknown) => error);
      if (stored !== bytes) throw unreadable(ctx, req, file.key, stored);
      const part = partOf(req, bytes);
      // Paid before the first byte in the requests model, whatever range is asked for.
      if (!(await charge(ctx, res, 0))) return;
      const headers = new Map([
        ['Content-Type', file.type],
        ['Content-Disposition', `attachment; filename="${file.name}"`],
        ['Cache-Control', 'private, max-age=0'],
        ['Accept-Ranges', 'bytes'],
        ['Content-Length', String(part ? part.end - part.start + 1 : bytes)],
      ]);
      if (part) headers.set('Content-Range', `bytes ${part.start}-${part.end}/${bytes}`);
      if (req.method === 'HEAD') {
        res
          .status(part ? 206 : 200)
          .setHeaders(headers)
          .end();
        return;
      }
      const body = await ctx.exports.files.read(file.key, part ?? undefined).catch((error: unknown) => {
        throw unreadable(ctx, req, file.key, error);
      });
      if (!body) throw unreadable(ctx, req, file.key, null);
      res.status(part ? 206 : 200).setHeaders(headers);
      // Piped as send piped a file (one listener on the response): the object is let go when the answer
      // ends or its client goes. The store failing mid-object cuts the answer, which is refunded (http/metering.ts).
      res.once('unpipe', () => body.destroy());
      body.once('error', (error) => {
        ctx.logger.error({ err: error, export_id: req.params.exportId, n, key: file.key }, 'export download cut by the store');
        res.destroy(error);
      });
      body.pipe(res);
    },
  };
}

/**
 * The part of a file of `bytes` bytes that the Range header asks for, as send (behind sendFile) decided
 * it for a file without validators: one byte range → that part; several, a malformed header, another
 * unit or any If-Range → null, the whole file; a range with no byte in the file → 416.
 */
function partOf(req: Request, bytes: number): ByteRange | null {
  const header = req.headers.range;
  if (header === undefined) return null;
  if (req.headers['if-range'] === undefined && req.range(bytes) === -1) {
    throw new ApiError(
      'range_not_satisfiable',
      `The Range header (${header.slice(0, 60)}) lies outside this file of ${bytes} bytes; ask for bytes from 0 to ${bytes - 1}.`,
      {
        // Where a resumed download can start over.
        headers: { 'Content-Range': `bytes */${bytes}` },
      },
    );
  }
  if (!/^ *bytes=/.test(header) || req.headers['if-range']) return null;
  const ranges = req.range(bytes, { combine: true });
  return Array.isArray(ranges) && ranges.length === 1 ? { start: ranges[0]!.start, end: ranges[0]!.end } : null;
}

/**
 * 503 export_unavailable: the record lists the file, so it was stored whole; the store has lost it
 * (`stored`: null, or another size) or cannot be reached (`stored`: the error).
 */
function unreadable(ctx: AppContext, req: Request, key: string, stored: unknown): ApiError {
  const found = stored instanceof Error ? { err: stored } : { size: stored };
  ctx.logger.error(
    { export_id: req.params.exportId, n: req.params.n, key, store: ctx.exports.files.location, ...found },
    'export file listed but unreadable in the store',
  );
  return new ApiError('export_unavailable', 'This export file cannot be read on this server; retry shortly, or create the export again.');
}
