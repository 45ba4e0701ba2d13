// Calls of the state store's metering functions (sql/state/functions.sql) with named arguments, and the
// rows they answer.

/** A call of a store function with named arguments, in the order given. */
export const call = (fn: string, names: string[], casts: Record<string, string> = {}) =>
  `${fn}(${names.map((name, i) => `${name} => $${i + 1}${casts[name] ?? ''}`).join(', ')})`;

/** What a request taken in the store is: its ledger row's own columns. */
export const REQUEST_ARGS = ['p_request', 'p_account', 'p_key', 'p_at', 'p_method', 'p_route', 'p_class'];

/** Where the account stands, as admission and a lease's grant say it. */
export interface StandingRow {
  window_used: number;
  window_reset: Date;
  requests_used: string | number;
  requests_left: string | number;
  records_used: string | number;
  records_reserved: string | number;
}

/** What a settlement answers: charged, and where the month stands after it (NULLs when it did not touch the month). */
export interface SettleRow {
  charged: boolean;
  records_used: string | number | null;
  records_reserved: string | number | null;
  overage_micros: string | number;
  settlement: string | null;
}
