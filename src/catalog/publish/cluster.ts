// Groups postings into openings: union-find over the candidate pairs, strongest evidence first,
// never joining two postings that the same board listed side by side (one board lists an opening once).

import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface Pair {
  a: number;
  b: number;
  url_match: boolean;
  same_title: boolean;
  /** How many of the shorter text's lead sentences (its first two long ones) the other text has, of lead_count. */
  lead_shared: number;
  lead_count: number;
  /** Share of the shorter text's sentences found in the other, and how many whole sentences it has. */
  overlap: number;
  shorter: number;
  /** One text is a truncated copy (with no whole sentence of its own) that begins the other word for word. */
  prefix_match: boolean;
}

export interface Node {
  id: number;
  board: string;
  first: number;
  last: number;
}

/**
 * How strongly a pair says "same opening"; 0 when it does not. Copies start the same way, so the
 * lead sentences must agree; a title that differs beyond its core ("Banker, Retail Banking") asks
 * for more of the text to agree; one listing URL shared by both is evidence of its own.
 */
export function evidence(pair: Pair): number {
  const leadAgrees = pair.lead_count > 0 && pair.lead_shared === pair.lead_count;
  if (pair.url_match && (leadAgrees || (pair.same_title && pair.lead_count === 0))) return 3 + pair.overlap;
  if (pair.prefix_match && pair.same_title) return 1.5;
  if (!leadAgrees) return 0;
  // A copy cut after a sentence or two has nothing but its lead to compare.
  if (pair.same_title && (pair.overlap >= 0.3 || pair.shorter < 3)) return 2 + pair.overlap;
  if (pair.overlap >= 0.5) return 1 + pair.overlap;
  return 0;
}

class Components {
  private readonly parent = new Map<number, number>();
  /** Per root: board → the [first, last] listing intervals of its postings on that board. */
  private readonly boards = new Map<number, Map<string, [number, number][]>>();

  constructor(nodes: Iterable<Node>) {
    for (const node of nodes) {
      this.parent.set(node.id, node.id);
      this.boards.set(node.id, new Map([[node.board, [[node.first, node.last]]]]));
    }
  }

  find(id: number): number {
    let root = id;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    let current = id;
    while (current !== root) {
      const next = this.parent.get(current)!;
      this.parent.set(current, root);
      current = next;
    }
    return root;
  }

  private conflict(x: number, y: number): boolean {
    const bx = this.boards.get(x)!;
    const by = this.boards.get(y)!;
    const [small, large] = bx.size <= by.size ? [bx, by] : [by, bx];
    for (const [board, intervals] of small) {
      const others = large.get(board);
      if (!others) continue;
      for (const [f1, l1] of intervals) for (const [f2, l2] of others) if (f1 <= l2 && f2 <= l1) return true;
    }
    return false;
  }

  /** Joins the components of a and b unless that would put two side-by-side listings of one board together. */
  union(a: number, b: number): boolean {
    const x = this.find(a);
    const y = this.find(b);
    if (x === y) return true;
    if (this.conflict(x, y)) return false;
    const [keep, drop] = x < y ? [x, y] : [y, x];
    this.parent.set(drop, keep);
    const target = this.boards.get(keep)!;
    for (const [board, intervals] of this.boards.get(drop)!) target.set(board, [...(target.get(board) ?? []), ...intervals]);
    this.boards.delete(drop);
    return true;
  }

  ids(): IterableIterator<number> {
    return this.parent.keys();
  }
}

/** Clusters the nodes; returns posting number → cluster (the smallest posting number of its cluster). */
export function cluster(nodes: Iterable<Node>, pairs: Pair[]): Map<number, number> {
  const components = new Components(nodes);
  const ranked = pairs
    .map((pair) => ({ pair, strength: evidence(pair) }))
    .filter((p) => p.strength > 0)
    .sort((p, q) => q.strength - p.strength || p.pair.a - q.pair.a || p.pair.b - q.pair.b);
  for (const { pair } of ranked) components.union(pair.a, pair.b);
  const result = new Map<number, number>();
  for (const id of components.ids()) result.set(id, components.find(id));
  return result;
}

async function* jsonLines<T>(path: string): AsyncGenerator<T> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line) as T;
}

/** Reads nodes and pairs exported by the merge stage, clusters them and writes {p, root} lines. */
export async function clusterFiles(nodesPath: string, pairsPath: string, outPath: string): Promise<{ nodes: number; pairs: number; merged: number }> {
  const nodes: Node[] = [];
  for await (const node of jsonLines<Node>(nodesPath)) nodes.push(node);
  const pairs: Pair[] = [];
  for await (const pair of jsonLines<Pair>(pairsPath)) pairs.push(pair);
  const clusters = cluster(nodes, pairs);
  const out = createWriteStream(outPath);
  let merged = 0;
  for (const [posting, root] of clusters) {
    if (posting === root) continue;
    merged++;
    if (!out.write(`{"p":${posting},"root":${root}}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { nodes: nodes.length, pairs: pairs.length, merged };
}
