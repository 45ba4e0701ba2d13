// Money rules: amounts in USD with at most two decimals, and at least one cent where an amount must be positive.

/** The smallest positive amount: one cent. */
export const ONE_CENT_USD = 0.01;

/**
 * True when the amount, as written, has at most two decimals. Read from the shortest decimal text of the
 * number (what JSON.parse was given, for any JSON number of up to 17 significant digits), so 0.07 passes
 * although 0.07 * 100 is 7.000000000000001, and 1e-9 or 5e-324 fail although they round to 0 cents.
 */
export function hasAtMostTwoDecimals(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  return Number.isInteger(value) || /^-?\d+\.\d{1,2}$/.test(String(value));
}
