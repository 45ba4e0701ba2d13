// Sorted lists of document numbers (ascending, no repeats), and the set operations on them that
// Boolean text queries are made of.

export type DocList = Uint32Array;

export function intersect(a: DocList, b: DocList): DocList {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Uint32Array(a.length);
  let n = 0;
  let j = 0;
  if (b.length < a.length * 8) {
    // Lists of similar lengths: one merge pass.
    for (let i = 0; i < a.length && j < b.length; i++) {
      const x = a[i]!;
      while (j < b.length && b[j]! < x) j++;
      if (j < b.length && b[j] === x) out[n++] = x;
    }
    return out.slice(0, n);
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    // Gallop through the longer list.
    let step = 1;
    while (j + step < b.length && b[j + step]! < x) step *= 2;
    let lo = j;
    let hi = Math.min(j + step, b.length);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (b[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    j = lo;
    if (j < b.length && b[j] === x) out[n++] = x;
  }
  return out.slice(0, n);
}

export function subtract(a: DocList, b: DocList): DocList {
  const out = new Uint32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    while (j < b.length && b[j]! < x) j++;
    if (j >= b.length || b[j] !== x) out[n++] = x;
  }
  return out.slice(0, n);
}

export function union(a: DocList, b: DocList): DocList {
  const out = new Uint32Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  return out.slice(0, n);
}

export function unionAll(lists: DocList[]): DocList {
  if (lists.length === 0) return new Uint32Array(0);
  let result = lists[0]!;
  for (const list of lists.slice(1)) result = union(result, list);
  return result;
}
