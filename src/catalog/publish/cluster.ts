// Groups postings into openings: union-find over the accepted pairs, strongest evidence first (the
// strength comes from sql/publish/merge.sql), never joining two postings that one board listed side
// by side, since a board lists an opening once. Posting numbers are dense (1..n), so the forest and
// the postings' boards and listing intervals live in typed arrays.

import { readFile, writeFile } from 'node:fs/promises';

export interface Edge {
  a: number;
  b: number;
  strength: number;
}

export interface Node {
  id: number;
  board: string;
  first: number;
  last: number;
}

class Forest {
  private readonly parent: Int32Array;
  private readonly board: Int32Array;
  private readonly first: Float64Array;
  private readonly last: Float64Array;
  /** Members of each root that has absorbed another (a singleton's only member is itself). */
  private readonly members = new Map<number, number[]>();

  constructor(nodes: Node[]) {
    const size = nodes.reduce((max, n) => Math.max(max, n.id), 0) + 1;
    this.parent = new Int32Array(size).fill(-1);
    this.board = new Int32Array(size);
    this.first = new Float64Array(size);
    this.last = new Float64Array(size);
    const boardIds = new Map<string, number>();
    for (const node of nodes) {
      this.parent[node.id] = node.id;
      let board = boardIds.get(node.board);
      if (board === undefined) boardIds.set(node.board, (board = boardIds.size));
      this.board[node.id] = board;
      this.first[node.id] = node.first;
      this.last[node.id] = node.last;
    }
  }

  find(id: number): number {
    let root = id;
    while (this.parent[root] !== root) root = this.parent[root]!;
    while (this.parent[id] !== root) {
      const next = this.parent[id]!;
      this.parent[id] = root;
      id = next;
    }
    return root;
  }

  private membersOf(root: number): number[] {
    return this.members.get(root) ?? [root];
  }

  /** Two postings of one board whose listing intervals overlap: one board never lists an opening twice. */
  private conflict(x: number, y: number): boolean {
    for (const m of this.membersOf(x)) {
      for (const n of this.membersOf(y)) {
        if (this.board[m] === this.board[n] && this.first[m]! <= this.last[n]! && this.first[n]! <= this.last[m]!) return true;
      }
    }
    return false;
  }

  /** Joins the components of a and b unless that would put two side-by-side listings of one board together. */
  union(a: number, b: number): void {
    const x = this.find(a);
    const y = this.find(b);
    if (x === y || this.conflict(x, y)) return;
    const [keep, drop] = x < y ? [x, y] : [y, x];
    this.parent[drop] = keep;
    this.members.set(keep, [...this.membersOf(keep), ...this.membersOf(drop)]);
    this.members.delete(drop);
  }

  *roots(): Generator<[number, number]> {
    for (let id = 0; id < this.parent.length; id++) if (this.parent[id]! >= 0) yield [id, this.find(id)];
  }
}

/** Clusters the nodes; returns posting number → cluster (the smallest posting number of its cluster). */
export function cluster(nodes: Node[], edges: Edge[]): Map<number, number> {
  const forest = new Forest(nodes);
  edges.sort((p, q) => q.strength - p.strength || p.a - q.a || p.b - q.b);
  for (const edge of edges) forest.union(edge.a, edge.b);
  return new Map(forest.roots());
}

/** The lines of a small CSV file (no quoting: its fields hold no commas). */
async function csvRows(path: string): Promise<string[][]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split(','));
}

/** Reads the edges and nodes exported by the merge stage, clusters them and writes "p,root" lines. */
export async function clusterFiles(nodesPath: string, edgesPath: string, outPath: string): Promise<{ edges: number; merged: number }> {
  // Board keys are source/board slugs, which hold no comma.
  const nodes = (await csvRows(nodesPath)).map(([id, board, first, last]) => ({
    id: Number(id),
    board: board!,
    first: Number(first),
    last: Number(last),
  }));
  const edges = (await csvRows(edgesPath)).map(([a, b, strength]) => ({ a: Number(a), b: Number(b), strength: Number(strength) }));
  const lines: string[] = [];
  for (const [posting, root] of cluster(nodes, edges)) if (posting !== root) lines.push(`${posting},${root}\n`);
  await writeFile(outPath, lines.join(''));
  return { edges: edges.length, merged: lines.length };
}
