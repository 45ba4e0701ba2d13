// Jobs cursors (spec 4.12): opaque, signed with HMAC-SHA256, at most 2,048 characters, bound to the
// route, the projection, the snapshot watermark, the normalised filters, the sort and the page size.
// A cursor carries where the previous page ended: the last job's place in the default order
// (sort=updated), or how many ranked jobs were already returned (sort=relevance).

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Queryable } from '../db/state-store.js';
import { invalidRequest } from '../errors.js';

export interface CursorScope {
  route: string;
  watermark: string;
  /** Everything else the cursor is bound to: filters, projection, sort, page size. */
  binding: string;
}

interface Payload {
  r: string;
  w: string;
  b: string;
  /** sort=updated: the ord of the last job returned; sort=relevance: jobs returned so far. */
  at: number;
}

export class CursorSigner {
  private constructor(private readonly key: Buffer) {}

  /**
   * The secret all servers of the service share: kept in the state store, made once by the first server
   * that needs it. A secret a server kept in `legacyFile` before (data/cursor-secret) is offered first,
   * so the cursors it signed stay good.
   */
  static async open(store: Queryable, legacyFile?: string): Promise<CursorSigner> {
    const offered = (legacyFile ? await readFile(legacyFile, 'utf8').catch(() => '') : '').trim() || randomBytes(32).toString('base64url');
    await store.query(`INSERT INTO service_secrets (name, value) VALUES ('cursor', $1) ON CONFLICT (name) DO NOTHING`, [offered]);
    const [row] = await store.query<{ value: string }>(`SELECT value FROM service_secrets WHERE name = 'cursor'`);
    return new CursorSigner(Buffer.from(row!.value, 'base64url'));
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 18);
  }

  /** Any JSON value as an opaque signed token (the usage cursors of spec 4.12 rule 4). */
  seal(value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The value of a token made by seal(); undefined for anything else, or anything altered. */
  unseal(token: string): unknown {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return undefined;
    // Compared as text: decoding would ignore a character added at the end of the signature.
    const expected = Buffer.from(this.mac(body).toString('base64url'));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  /**
   * The payload of a sealed cursor (seal()) of kind `kind` (its `k`, called `noun` in messages) bound to
   * `binding` (its `b`): 400 invalid_request for a token not sealed here, altered, of another kind or
   * failing `valid`, and `resend` for one made for another binding (it says what to send again).
   */
  opened<T extends { k: string; b: string }>(
    token: string,
    o: { kind: T['k']; noun: string; binding: string; resend: string; valid?: (payload: T) => boolean },
  ): T {
    const payload = this.unseal(token) as T | undefined;
    if (payload?.k !== o.kind || !(o.valid?.(payload) ?? true))
      throw invalidRequest(`cursor is not a ${o.noun} cursor of this API or was altered; pass next_cursor exactly as received.`);
    if (payload.b !== o.binding) throw invalidRequest(o.resend);
    return payload;
  }

  sign(scope: CursorScope, at: number): string {
    return this.seal({ r: scope.route, w: scope.watermark, b: digest(scope.binding), at } satisfies Payload);
  }

  /**
   * Where the page after the cursor starts; 400 invalid_request for any cursor not made for this scope.
   * A cursor of another snapshot goes to `otherWatermark` when given (it throws the answer).
   */
  verify(cursor: string, scope: CursorScope, otherWatermark?: (watermark: string, at: number) => never): number {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined)
      throw invalidRequest('cursor is not a cursor of this API; pass next_cursor exactly as received.');
    const payload = this.unseal(cursor) as Payload | undefined;
    if (!payload) throw invalidRequest('cursor is not a cursor of this API or was altered; pass next_cursor exactly as received.');
    if (payload.r !== scope.route) throw invalidRequest(`cursor was made by ${payload.r}; use it with the same route.`);
    if (payload.w !== scope.watermark) {
      if (otherWatermark) otherWatermark(payload.w, payload.at);
      throw invalidRequest(
        `cursor belongs to catalog snapshot ${payload.w}, and ${scope.watermark} is published now; start again from the first page.`,
      );
    }
    if (payload.b !== digest(scope.binding)) {
      throw invalidRequest(
        'cursor was made for other filters, fields, include, sort or page size; send the same ones as for the first page.',
      );
    }
    return payload.at;
  }
}

/** A short digest of what a cursor is bound to (filters, page size...): equal bindings, equal digests. */
export const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);
