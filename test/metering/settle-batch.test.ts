import { expect } from 'chai';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount } from '../../src/metering/accounts.js';
import { settleCounted, settleJournaled, type JournalRow } from '../../src/metering/journal.js';
import { countedRow, SETTLE_LEASED_ARGS } from '../../src/metering/leased-settlements.js';
import { freshStore, releaseStore } from '../support/app.js';

// A batch of leased settlements settled at once in the store (meter_settle_batch, ADR 0013) ends exactly
// as the same rows settled one by one in order (meter_settle_leased): the same answers, the same ledger
// rows in the same order, the same months, the same window slots held. Each case runs the batch on one
// account and the rows one by one on its twin, from the same months and window.

const ONE_BY_ONE = `SELECT * FROM meter_settle_leased(${SETTLE_LEASED_ARGS.map((name, i) => `${name} => $${i + 1}`).join(', ')})`;
const AT = '2026-11-25T10:00:00Z';
const ALLOWANCE = 5_000;
/** Each account's window at AT: slots used, and held by a lease (the requests below were admitted from them). */
const WINDOW = { used: 30, held: 20 };

interface MonthState {
  month: string;
  granted: number;
  drawn: number;
  records?: number;
}

/** A row of the batch: a settled GET /v1/jobs/{id} of 1 record unless told otherwise. */
interface Row {
  records?: number;
  status?: number;
  void?: boolean;
  force?: boolean;
  at?: string;
  /** It took a slot of the window (true unless told). */
  windowed?: boolean;
  /** The second account of the case (and its twin). */
  other?: boolean;
}

/** A batch's first rows: records, an empty page, an error, a voided answer, the second account's records. */
const EVERY_KIND: Row[] = [
  { records: 3 },
  { records: 0, windowed: false },
  { status: 404, records: 0 },
  { records: 50, void: true },
  { other: true, records: 2 },
];

/** A row answered by the store: its place, its outcome and the settlement's columns. */
type Answer = JournalRow & Record<string, unknown>;

interface Twin {
  batch: string;
  oneByOne: string;
}

async function account(store: StateStore, months: MonthState[]): Promise<string> {
  const { account_id } = await createAccount(store, { plan: 'paid-5k' });
  for (const m of months)
    await store.query(
      `INSERT INTO usage_months (account_id, month, requests_granted, requests_drawn, requests_used, records_used)
       VALUES ($1, $2, $3, $4, $4, $5)`,
      [account_id, m.month, m.granted, m.drawn, m.records ?? 0],
    );
  await store.query('INSERT INTO rate_windows (account_id, window_start, used, held) VALUES ($1, $2, $3, $4)', [
    account_id,
    AT,
    WINDOW.used,
    WINDOW.held,
  ]);
  return account_id;
}

const argsOf = (row: Row, accountId: string, requestId: string): Record<string, unknown> => {
  const at = row.at ?? AT;
  return {
    p_request: requestId,
    p_account: accountId,
    p_key: `key_${accountId}`,
    p_at: at,
    p_method: 'GET',
    p_route: '/v1/jobs/{jobId}',
    p_class: 'jobs_get',
    p_node: null,
    // The start of its minute: the window whose slot it took.
    p_window: (row.windowed ?? true) ? `${at.slice(0, 16)}:00Z` : null,
    p_month: `${at.slice(0, 7)}-01`,
    p_status: row.status ?? 200,
    p_records: row.records ?? 1,
    p_allowance: ALLOWANCE,
    p_force: row.force ?? true,
    p_void: row.void ?? false,
    p_overage_enabled: true,
    p_price: 400,
    p_limit_cents: null,
  };
};

/** What an account's ledger and months hold, without its own ids. */
async function stateOf(store: StateStore, accountId: string) {
  const ledger = await store.query(
    `SELECT status, records_charged::int, overage_micros::int, overage_records::int, settlement_status,
            to_char(drawn_month, 'YYYY-MM-DD') AS drawn, counted, occurred_at::text
     FROM ledger WHERE account_id = $1 ORDER BY seq`,
    [accountId],
  );
  const months = await store.query(
    `SELECT to_char(month, 'YYYY-MM-DD') AS month, records_used::int, requests_used::int, requests_drawn::int, requests_granted::int,
            overage_records::int, overage_used_micros::int, records_reserved::int
     FROM usage_months WHERE account_id = $1 ORDER BY month`,
    [accountId],
  );
  const [window] = await store.query('SELECT used, held FROM rate_windows WHERE account_id = $1', [accountId]);
  return { ledger, months, window };
}

/** The rows settled one by one in order on the twins' accounts: their answers. */
async function settleOneByOne(rows: Row[], twinOf: (row: Row) => Twin, store: StateStore, tag: string) {
  const oneByOne: Record<string, unknown>[] = [];
  for (const [i, row] of rows.entries()) {
    const args = argsOf(row, twinOf(row).oneByOne, `req_one_${tag}_${i}`);
    const [answer] = await store.query<Record<string, unknown>>(
      ONE_BY_ONE,
      SETTLE_LEASED_ARGS.map((name) => args[name]),
    );
    oneByOne.push({ i, ...answer });
  }
  return oneByOne;
}

async function twins(store: StateStore, months: MonthState[], otherMonths: MonthState[]) {
  const first: Twin = { batch: await account(store, months), oneByOne: await account(store, months) };
  const second: Twin = { batch: await account(store, otherMonths), oneByOne: await account(store, otherMonths) };
  return { first, second, twinOf: (row: Row) => (row.other ? second : first) };
}

/** Runs `rows` as one batch on the case's accounts and one by one on their twins; both ends compared. */
async function settleBothWays(store: StateStore, months: MonthState[], rows: Row[], otherMonths: MonthState[] = months) {
  const { first, second, twinOf } = await twins(store, months, otherMonths);
  const batch = rows.map((row, i) => argsOf(row, twinOf(row).batch, `req_batch_${first.batch}_${i}`));
  const [draws] = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM meter_batch_draws($1::jsonb)', [
    JSON.stringify(batch.map((args, i) => ({ ...args, i }))),
  ]);
  const answered = await settleJournaled<Answer>(store, batch, undefined);
  const oneByOne = await settleOneByOne(rows, twinOf, store, first.oneByOne);
  expect(answered.map((a) => ({ ...a }))).to.deep.equal(oneByOne);
  for (const twin of [first, second]) expect(await stateOf(store, twin.batch)).to.deep.equal(await stateOf(store, twin.oneByOne));
  return { atOnce: draws!.n > 0, answered, accountId: first.batch };
}

/**
 * Runs `rows` as the server settles a batch of journaled settlements (settleCounted, or else
 * settleJournaled) on the case's accounts and one by one on their twins; both ends compared, and a counted
 * batch's answers (as settled in memory) against the one-by-one answers.
 */
async function settleJournaledBothWays(store: StateStore, months: MonthState[], rows: Row[], otherMonths: MonthState[] = months) {
  const { first, second, twinOf } = await twins(store, months, otherMonths);
  const batch = rows.map((row, i) => argsOf(row, twinOf(row).batch, `req_counted_${first.batch}_${i}`));
  const counted = await settleCounted(store, batch, undefined);
  // Declined, it wrote nothing: the batch's accounts are as they were.
  if (!counted) {
    expect((await stateOf(store, first.batch)).ledger).to.deep.equal([]);
    await settleJournaled<Answer>(store, batch, undefined);
  }
  const oneByOne = await settleOneByOne(rows, twinOf, store, first.oneByOne);
  if (counted)
    for (const [i, args] of batch.entries())
      expect(countedRow(args), `row ${i}`).to.deep.include({
        outcome: oneByOne[i]!.outcome,
        charged: oneByOne[i]!.charged,
        settlement: oneByOne[i]!.settlement,
        overage_micros: Number(oneByOne[i]!.overage_micros),
      });
  for (const twin of [first, second]) expect(await stateOf(store, twin.batch)).to.deep.equal(await stateOf(store, twin.oneByOne));
  return { counted, accountId: first.batch };
}

describe('a batch of leased settlements settled at once in the store', function () {
  this.timeout(60_000);
  let store: StateStore;

  beforeEach(async () => {
    store = await freshStore();
  });
  afterEach(async () => {
    await releaseStore(store);
  });

  it('ends as one by one: records into overage mid-batch, empty pages, errors, a voided answer, two accounts', async () => {
    const months = [{ month: '2026-11-01', granted: 100, drawn: 10, records: ALLOWANCE - 6 }];
    const rows: Row[] = [...EVERY_KIND, { records: 5 }, { records: 2 }, { status: 400, records: 7 }, { other: true }];
    const { atOnce, answered, accountId } = await settleBothWays(store, months, rows);
    expect(atOnce).to.equal(true);
    // Six of the first account's seven requests took a slot: no longer held.
    expect((await stateOf(store, accountId)).window).to.deep.equal({ used: WINDOW.used, held: WINDOW.held - 6 });
    expect(answered.map((a) => a.settlement)).to.deep.equal([
      'included',
      'included',
      'not_charged',
      'not_charged',
      'included',
      'overage',
      'overage',
      'not_charged',
      'included',
    ]);
  });

  it('ends as one by one when an older month still has the requests drawn, and a request of a window gone by', async () => {
    const months = [
      { month: '2026-10-01', granted: 10, drawn: 5 },
      { month: '2026-11-01', granted: 100, drawn: 0 },
    ];
    const { atOnce, accountId } = await settleBothWays(store, months, [{}, {}, { records: 0 }, { at: '2026-11-25T09:59:30Z' }]);
    expect(atOnce).to.equal(true);
    // The request of the window before took no slot of this one.
    expect((await stateOf(store, accountId)).window).to.deep.equal({ used: WINDOW.used, held: WINDOW.held - 3 });
  });

  it('ends as one by one with requests of a later window than the row counts: the row brought to it, its slots used', async () => {
    const months = [{ month: '2026-11-01', granted: 100, drawn: 0 }];
    const rows: Row[] = [{}, { at: '2026-11-25T10:01:05Z' }, { at: '2026-11-25T10:01:20Z', records: 0 }];
    const { atOnce, accountId } = await settleBothWays(store, months, rows);
    expect(atOnce).to.equal(true);
    // A window its server began in memory: its two requests are what the row counts of it.
    expect((await stateOf(store, accountId)).window).to.deep.equal({ used: 2, held: 0 });
  });

  it('goes row by row, and still ends the same, when the oldest month with requests has fewer than the batch takes', async () => {
    const months = [
      { month: '2026-10-01', granted: 10, drawn: 8 },
      { month: '2026-11-01', granted: 100, drawn: 0 },
    ];
    const { atOnce } = await settleBothWays(store, months, [{}, {}, {}, {}]);
    expect(atOnce).to.equal(false);
  });

  it('goes row by row for a batch with records not yet charged in memory, or an account across two months', async () => {
    const months = [
      { month: '2026-11-01', granted: 100, drawn: 0 },
      { month: '2026-12-01', granted: 100, drawn: 0 },
    ];
    expect((await settleBothWays(store, months, [{}, { force: false, records: 3 }])).atOnce).to.equal(false);
    expect((await settleBothWays(store, months, [{}, { at: '2026-12-01T00:00:01Z' }])).atOnce).to.equal(false);
  });

  it('answers a request already in the ledger as it was settled, without settling it again', async () => {
    const accountId = await account(store, [{ month: '2026-11-01', granted: 100, drawn: 0 }]);
    const batch = [{}, {}].map((row, i) => argsOf(row, accountId, `req_again_${i}`));
    const first = await settleJournaled<Answer>(store, batch, undefined);
    const again = await settleJournaled<Answer>(store, batch, undefined);
    expect(again.map((a) => a.settlement)).to.deep.equal(first.map((a) => a.settlement));
    const { months, ledger } = await stateOf(store, accountId);
    expect(ledger).to.have.length(2);
    expect(months[0]).to.include({ requests_drawn: 2, records_used: 2 });
  });

  describe('as counted, when every row is journaled (meter_settle_counted)', () => {
    it('ends as one by one: records, empty pages, errors, a voided answer, two accounts, a window gone by', async () => {
      const months = [{ month: '2026-11-01', granted: 100, drawn: 10, records: ALLOWANCE - 20 }];
      const rows: Row[] = [...EVERY_KIND, { records: 5 }, { status: 400, records: 7 }, { at: '2026-11-25T09:59:30Z' }, { other: true }];
      const { counted, accountId } = await settleJournaledBothWays(store, months, rows);
      expect(counted).to.equal(true);
      expect((await stateOf(store, accountId)).months[0]).to.include({ records_used: ALLOWANCE - 20 + 9, requests_drawn: 17 });
    });

    it('ends as one by one drawing from an older month, and with requests of a later window than the row counts', async () => {
      const months = [
        { month: '2026-10-01', granted: 10, drawn: 5 },
        { month: '2026-11-01', granted: 100, drawn: 0 },
      ];
      const rows: Row[] = [{}, { at: '2026-11-25T10:01:05Z' }, { at: '2026-11-25T10:01:20Z', records: 0 }];
      const { counted, accountId } = await settleJournaledBothWays(store, months, rows);
      expect(counted).to.equal(true);
      expect((await stateOf(store, accountId)).window).to.deep.equal({ used: 2, held: 0 });
    });

    it('declines, writing nothing, and the batch then ends as one by one: records into overage, too few requests, two months', async () => {
      const overage = [{ month: '2026-11-01', granted: 100, drawn: 0, records: ALLOWANCE - 3 }];
      expect((await settleJournaledBothWays(store, overage, [{ records: 2 }, { records: 2 }])).counted).to.equal(false);
      const few = [
        { month: '2026-10-01', granted: 10, drawn: 8 },
        { month: '2026-11-01', granted: 100, drawn: 0 },
      ];
      expect((await settleJournaledBothWays(store, few, [{}, {}, {}])).counted).to.equal(false);
      const two = [
        { month: '2026-11-01', granted: 100, drawn: 0 },
        { month: '2026-12-01', granted: 100, drawn: 0 },
      ];
      expect((await settleJournaledBothWays(store, two, [{}, { at: '2026-12-01T00:00:01Z' }])).counted).to.equal(false);
      expect((await settleJournaledBothWays(store, two, [{}, { force: false, records: 3 }])).counted).to.equal(false);
      expect((await settleJournaledBothWays(store, two, [{}, { status: 429, records: 0 }])).counted).to.equal(false);
    });

    it('declines a batch with a request already in the ledger: it is answered as settled, not settled twice', async () => {
      const accountId = await account(store, [{ month: '2026-11-01', granted: 100, drawn: 0 }]);
      const batch = [{}, {}].map((row, i) => argsOf(row, accountId, `req_counted_again_${i}`));
      expect(await settleCounted(store, batch, { seq: 1, position: 10 })).to.equal(true);
      expect(await settleCounted(store, batch, { seq: 1, position: 10 })).to.equal(false);
      const again = await settleJournaled<Answer>(store, batch, undefined);
      expect(again.map((a) => a.settlement)).to.deep.equal(['included', 'included']);
      const { months, ledger } = await stateOf(store, accountId);
      expect(ledger).to.have.length(2);
      expect(months[0]).to.include({ requests_drawn: 2, records_used: 2 });
      const [journal] = await store.query('SELECT seq::int, position::int FROM meter_journal WHERE journal = $1', ['meter']);
      expect(journal).to.deep.equal({ seq: 1, position: 10 });
    });
  });
});
