// This server in the state store: registered when it starts and renewed while it runs, so that the
// requests a stopped server left pending are settled by whoever notices (docs/usage-and-limits.md,
// "When an answer is not delivered"). Every answer is settled before its first byte, so a request
// still pending when its server died was never answered: it is settled not charged, and its monthly
// request is given back (meter_abandon in sql/state/functions.sql).

import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { namedQueries } from '../db/sql-files.js';
import type { StateStore } from '../db/state-store.js';
import { randomBase32 } from './ids.js';

const SQL = namedQueries('state/nodes.sql', ['register', 'heartbeat', 'deregister', 'dead', 'left_pending', 'abandon']);
/** Rows per look at the ledger: the query's LIMIT. */
const BATCH = 1000;
/** On a shared store, requests of servers from before registration existed are settled after this long. */
const UNREGISTERED_MS = 60 * 60 * 1000;
const END_OF_TIME = new Date('9999-12-31T00:00:00Z');

export interface NodeOptions {
  /** A server not seen for this long has stopped; it renews every third of it. 0: no heartbeat (tests). */
  leaseMs: number;
  /** No other server can share the store (the embedded one, held under its lock): every other registration is a stopped server. */
  alone: boolean;
}

export class Nodes {
  readonly id = `node_${randomBase32(12)}`;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: StateStore,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    private readonly options: NodeOptions,
  ) {}

  /** Registers this server, settles what stopped servers left, then renews and looks again every leaseMs / 3. */
  async start(): Promise<void> {
    await this.store.query(SQL.register, [this.id, hostname(), process.pid, this.clock()]);
    await this.sweep();
    if (this.options.leaseMs <= 0) return;
    this.timer = setInterval(() => this.beat(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
  }

  private beat(): void {
    this.beating = this.beating
      .then(async () => {
        await this.store.query(SQL.heartbeat, [this.id, this.clock()]);
        await this.sweep();
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'node heartbeat failed; retried on the next beat'));
  }

  /** Settles the requests that stopped servers left pending; returns how many. */
  async sweep(): Promise<number> {
    const now = this.clock().getTime();
    const deadBefore = this.options.alone ? END_OF_TIME : new Date(now - this.options.leaseMs);
    let settled = 0;
    for (const { node_id } of await this.store.query<{ node_id: string }>(SQL.dead, [this.id, deadBefore])) {
      settled += await this.settleLeft(node_id, deadBefore);
      await this.store.query(SQL.deregister, [node_id]);
    }
    settled += await this.settleLeft(null, this.options.alone ? END_OF_TIME : new Date(now - UNREGISTERED_MS));
    if (settled > 0)
      this.logger.warn(
        { requests: settled },
        'settled requests a stopped server left unanswered: not charged, their monthly requests given back',
      );
    return settled;
  }

  private async settleLeft(nodeId: string | null, before: Date): Promise<number> {
    let settled = 0;
    for (;;) {
      const rows = await this.store.query<{ request_id: string }>(SQL.left_pending, [nodeId, before]);
      for (const { request_id } of rows) {
        const [row] = await this.store.query<{ abandoned: boolean }>(SQL.abandon, [request_id]);
        if (row?.abandoned) settled++;
      }
      if (rows.length < BATCH) return settled;
    }
  }

  /** Stops renewing and removes this server's registration (after its requests are settled). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    // A registration left behind (the store unreachable) is removed by the next server's sweep.
    await this.store
      .query(SQL.deregister, [this.id])
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not remove this server's registration"));
  }
}
