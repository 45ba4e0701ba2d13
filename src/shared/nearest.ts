// The nearest of known names to a mistyped one, for "did you mean" in error messages and the CLI.

import { distance } from 'fastest-levenshtein';

/**
 * The known name closest to `typed` (case-insensitive edit distance), when it is close enough to be what
 * was meant: one edit for names of up to 3 characters, else two or a third of the length (a swapped pair
 * of letters is two edits). Undefined otherwise.
 */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(lower, name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  const allowed = typed.length <= 3 ? 1 : Math.max(2, Math.ceil(typed.length / 3));
  return bestDistance <= allowed ? best : undefined;
}
