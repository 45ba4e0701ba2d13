// PostgreSQL's own quicksort, for results that depend on its (unstable) order: see rank.ts.

// qsort_arg (src/port/qsort_arg.c over src/include/lib/sort_template.h): Bentley-McIlroy quicksort with a
// presorted check, insertion sort below 7 elements. Not stable, and SortAndUniqItems' result depends on it.
type Compare<T> = (x: T, y: T) => number;

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

function med3<T>(a: T[], compare: Compare<T>, i: number, j: number, k: number): number {
  if (compare(a[i]!, a[j]!) < 0) return compare(a[j]!, a[k]!) < 0 ? j : compare(a[i]!, a[k]!) < 0 ? k : i;
  return compare(a[j]!, a[k]!) > 0 ? j : compare(a[i]!, a[k]!) < 0 ? i : k;
}

/** The pivot: the middle element, the median of three beyond 7 elements, the median of medians (ninther) beyond 40. */
function pivot<T>(a: T[], compare: Compare<T>, lo: number, n: number): number {
  let pm = lo + Math.floor(n / 2);
  if (n <= 7) return pm;
  let pl = lo;
  let pn = lo + n - 1;
  if (n > 40) {
    const d = Math.floor(n / 8);
    pl = med3(a, compare, pl, pl + d, pl + 2 * d);
    pm = med3(a, compare, pm - d, pm, pm + d);
    pn = med3(a, compare, pn - 2 * d, pn - d, pn);
  }
  return med3(a, compare, pl, pm, pn);
}

/** Three-way partition around a[lo]; returns the sizes of the smaller and the larger parts, now at both ends. */
function partition<T>(a: T[], compare: Compare<T>, lo: number, n: number): [number, number] {
  let pa = lo + 1;
  let pb = pa;
  let pc = lo + n - 1;
  let pd = pc;
  for (;;) {
    for (let r; pb <= pc && (r = compare(a[pb]!, a[lo]!)) <= 0; pb += 1) if (r === 0) swap(a, pa++, pb);
    for (let r; pb <= pc && (r = compare(a[pc]!, a[lo]!)) >= 0; pc -= 1) if (r === 0) swap(a, pc, pd--);
    if (pb > pc) break;
    swap(a, pb++, pc--);
  }
  const end = lo + n;
  let d = Math.min(pa - lo, pb - pa);
  for (let i = 0; i < d; i += 1) swap(a, lo + i, pb - d + i);
  d = Math.min(pd - pc, end - pd - 1);
  for (let i = 0; i < d; i += 1) swap(a, pb + i, end - d + i);
  return [pb - pa, pd - pc];
}

export function pgQsort<T>(a: T[], compare: Compare<T>, start = 0, count = a.length): void {
  let lo = start;
  let n = count;
  for (;;) {
    if (n < 7) {
      for (let m = lo + 1; m < lo + n; m += 1) for (let l = m; l > lo && compare(a[l - 1]!, a[l]!) > 0; l -= 1) swap(a, l, l - 1);
      return;
    }
    let presorted = true;
    for (let m = lo + 1; m < lo + n && presorted; m += 1) presorted = compare(a[m - 1]!, a[m]!) <= 0;
    if (presorted) return;
    swap(a, lo, pivot(a, compare, lo, n));
    const [d1, d2] = partition(a, compare, lo, n);
    // Recurse into the smaller part, loop on the larger, as the C code does.
    if (d1 <= d2) {
      if (d1 > 1) pgQsort(a, compare, lo, d1);
      lo += n - d2;
      n = d2;
    } else {
      if (d2 > 1) pgQsort(a, compare, lo + n - d2, d2);
      n = d1;
    }
    if (n <= 1) return;
  }
}
