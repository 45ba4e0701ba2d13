// The state store: accounts, keys and metering state in the PostgreSQL dialect, embedded (PGlite) or a server (pg).

export interface Queryable {
  /** Runs one statement with bound parameters and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface StateStore extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotice` with the payload of each NOTIFY on `channel` (from any process using the store) until
   * the returned function is called. `onLost` is called, once, if notices may have been missed since (the
   * listening connection of a server store failed); listen again to resume.
   */
  listen(channel: string, onNotice: (payload: string) => void, onLost: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
