// Calls of the state store's metering functions (sql/state/functions.sql) with named arguments.

/** A call of a store function with named arguments, in the order given. */
export const call = (fn: string, names: string[], casts: Record<string, string> = {}) =>
  `${fn}(${names.map((name, i) => `${name} => $${i + 1}${casts[name] ?? ''}`).join(', ')})`;

/** What a request taken in the store is: its ledger row's own columns. */
export const REQUEST_ARGS = ['p_request', 'p_account', 'p_key', 'p_at', 'p_method', 'p_route', 'p_class'];
