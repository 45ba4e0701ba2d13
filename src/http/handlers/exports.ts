// The export routes (spec 4.8): create, list, one, and file downloads with Range support.

import type { Request, Response } from 'express';
import { exists } from '../../catalog/files.js';
import { ApiError } from '../../errors.js';
import { exportRecord } from '../../exports/exports.js';
import { callerOf } from '../auth.js';
import type { AppContext } from '../../context.js';
import { charge, sendJson, ticketOf } from '../metering.js';
import { idempotencyKeyOf, markReplayed } from '../idempotency-key.js';
import { requestIdOf } from '../request-id.js';

export function exportHandlers(ctx: AppContext) {
  const noQuery = (req: Request) => {
    const names = Object.keys(req.query);
    if (names.length > 0) throw new ApiError('invalid_request', `This route takes no query parameters; got ${names.join(', ')}.`);
  };
  return {
    create: async (req: Request, res: Response): Promise<void> => {
      const caller = callerOf(res);
      // The request's records are charged when the export completes (or not at all if it fails): its
      // ledger row stays pending from here, even if the client goes away before the export is created.
      const ticket = ticketOf(res);
      if (ticket) ctx.meter.defer(ticket);
      let created: { record: Record<string, unknown>; replayed: boolean };
      try {
        created = await ctx.exports.create(caller, req.body, requestIdOf(res), idempotencyKeyOf(req, 'POST /v1/jobs/exports'));
      } catch (error) {
        // Settled before the error is written; a failing store leaves the row to the next start's sweep.
        if (ticket) {
          await ctx.meter
            .settle(ticket, { status: error instanceof ApiError ? error.status : 500, records: 0 })
            .catch((failure: unknown) => ctx.logger.error({ err: failure, request_id: requestIdOf(res) }, 'settling a refused export request failed'));
        }
        throw error;
      }
      const { record, replayed } = created;
      // A replay creates nothing: its request is settled now, not charged (the first one's export charges once).
      if (replayed && ticket) await ctx.meter.settle(ticket, { status: 202, records: 0, void: true });
      markReplayed(res, replayed);
      res.status(202).location(`/v1/jobs/exports/${record.export_id as string}`).json(record);
    },

    list: async (req: Request, res: Response): Promise<void> => {
      noQuery(req);
      await sendJson(ctx, res, { data: await ctx.exports.list(callerOf(res).account.account_id) });
    },

    one: async (req: Request, res: Response): Promise<void> => {
      noQuery(req);
      await sendJson(ctx, res, exportRecord(await ctx.exports.get(callerOf(res).account.account_id, String(req.params.exportId))));
    },

    /**
     * The file as it is on disk; express's sendFile answers Range (206), If-Range and HEAD. What can fail
     * (the file missing here, a range outside it) is decided before the request is settled, so that the
     * ledger holds the status the client gets.
     */
    file: async (req: Request, res: Response): Promise<void> => {
      noQuery(req);
      const n = /^[1-9]\d{0,5}$/.test(String(req.params.n)) ? Number(req.params.n) : 0;
      if (n === 0) throw new ApiError('file_not_found', 'n is the number of a file of the export, from 1.');
      const file = await ctx.exports.file(callerOf(res).account.account_id, String(req.params.exportId), n);
      if (!(await exists(file.path))) {
        // The record lists the file, so it was written: this server's disk has lost it (or never shared it).
        ctx.logger.error({ export_id: req.params.exportId, n, path: file.path }, 'export file listed but missing on disk');
        throw new ApiError('export_unavailable', 'This export file cannot be read on this server; retry shortly, or create the export again.');
      }
      // sendFile ignores a Range under an If-Range it cannot match (no validators are sent): the whole file.
      if (req.headers.range !== undefined && req.headers['if-range'] === undefined && req.range(file.file.bytes) === -1) {
        const bytes = file.file.bytes;
        throw new ApiError('range_not_satisfiable', `The Range header (${String(req.headers.range).slice(0, 60)}) lies outside this file of ${bytes} bytes; ask for bytes from 0 to ${bytes - 1}.`, {
          // Where a resumed download can start over.
          headers: { 'Content-Range': `bytes */${bytes}` },
        });
      }
      // Paid before the first byte in the requests model, whatever range is asked for.
      if (!(await charge(ctx, res, 0))) return;
      // A file is immutable and downloaded once: no conditional GET (send would answer 304 to
      // If-None-Match: * after the request was settled as a 200).
      delete req.headers['if-none-match'];
      delete req.headers['if-modified-since'];
      await new Promise<void>((resolve, reject) => {
        res.sendFile(
          file.path,
          {
            headers: { 'Content-Type': file.type, 'Content-Disposition': `attachment; filename="${file.name}"`, 'Cache-Control': 'private, max-age=0' },
            dotfiles: 'allow',
            acceptRanges: true,
            lastModified: false,
            etag: false,
          },
          (error) => {
            if (!error || res.headersSent) resolve(); // sent, or the client went away mid-download
            else reject(error);
          },
        );
      });
    },
  };
}
