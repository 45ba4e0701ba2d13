// Money rules: amounts in USD with at most two decimals.

/** True when the amount has at most two decimals; checked on the scaled value so binary fractions do not matter. */
export function hasAtMostTwoDecimals(value: number): boolean {
  return Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
}
