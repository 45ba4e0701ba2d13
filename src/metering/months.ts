// Calendar months in UTC: allowances reset at 00:00 UTC on the first day of each month.

export interface Period {
  start: Date;
  /** The first instant of the next month (exclusive end). */
  end: Date;
}

export function monthOf(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

/** `2026-11-01` for any instant of November 2026. */
export function monthKey(at: Date): string {
  return monthOf(at).start.toISOString().slice(0, 10);
}
