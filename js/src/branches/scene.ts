/**
 * What the renderer needs, precomputed once per layout so a frame only touches what is in
 * view: nodes grouped by style and sorted by y, edges merged into vertical runs and elbows,
 * and compaction spans reduced to the points where they turn.
 */

import { KIND_COUNT } from "../model/constants";
import type { Columns } from "../model/data";
import type { Display } from "../model/display";
import type { Layout } from "./layout";
import type { Tree } from "../model/tree";

/** Display nodes of one style, sorted by y (ys[j] is the y of nodes[j]). */
export interface Bucket {
  nodes: Int32Array;
  ys: Float32Array;
}

/** Edges: vertical runs (x, y0..y1) and elbows (parent -> child display nodes). */
export interface Edges {
  runX: Float32Array;
  runY0: Float32Array;
  runY1: Float32Array;
  runActive: Uint8Array;
  elbowParent: Int32Array;
  elbowChild: Int32Array;
  elbowActive: Uint8Array;
}

/** A compaction's kept span and cut, in display nodes. */
export interface CompactionMark {
  /** Display nodes from the compaction up to the first kept entry, only where x changes. */
  span: number[];
  /** Display node where context was cut (the first kept entry, or the compaction). */
  cutAt: number;
  tokensBefore: number;
}

export interface Scene {
  kind: "tidy";
  cols: Columns;
  tree: Tree;
  disp: Display;
  layout: Layout;
  /** Kinds 0..14, then 15 = collapsed segments. */
  buckets: Bucket[];
  /** World distance to the next node on the right at the same depth (Infinity if none). */
  rightGap: Float32Array;
  edges: Edges;
  compactions: CompactionMark[];
  view: "tree" | "branches";
  /** Half the world width of each box (collapsed segment or subtree box); 0 for nodes. */
  boxHalf: Float32Array;
}

/** Box half widths: ``base`` at least, and as wide as half the gap to the nearest node at
 * the same depth allows (less ``margin``), up to ``max``. A title then uses the room
 * beside its box instead of being cut at the box's fixed width. */
export function boxHalves(disp: Display, layout: Layout, base: number, max: number, margin = 9): Float32Array {
  const half = new Float32Array(disp.m);
  const { x } = layout;
  const { order, start } = byLevel(disp, layout);
  for (let l = 0; l + 1 < start.length; l++) {
    const row = Array.from(order.subarray(start[l], start[l + 1])).sort((p, q) => x[p] - x[q]);
    for (let j = 0; j < row.length; j++) {
      const d = row[j];
      if (!disp.isSeg[d]) continue;
      const left = j > 0 ? x[d] - x[row[j - 1]] : Infinity;
      const right = j + 1 < row.length ? x[row[j + 1]] - x[d] : Infinity;
      half[d] = Math.max(base, Math.min(max, Math.min(left, right) / 2 - margin));
    }
  }
  return half;
}

/** Group display nodes by drawing style, each group sorted by y. */
export function bucketize(cols: Columns, disp: Display, layout: Layout): Bucket[] {
  const styleOf = new Uint8Array(disp.m);
  const counts = new Int32Array(KIND_COUNT + 1);
  for (let d = 0; d < disp.m; d++) {
    const s = disp.isSeg[d] ? KIND_COUNT : Math.min(cols.kind[disp.entry[d]], KIND_COUNT - 1);
    styleOf[d] = s;
    counts[s]++;
  }
  // Order every node by y once (counting sort on the level), then deal them out.
  const byY = byLevel(disp, layout).order;

  const buckets: Bucket[] = Array.from(counts, (c) => ({ nodes: new Int32Array(c), ys: new Float32Array(c) }));
  const fill = new Int32Array(KIND_COUNT + 1);
  for (let j = 0; j < disp.m; j++) {
    const d = byY[j];
    const s = styleOf[d];
    const k = fill[s]++;
    buckets[s].nodes[k] = d;
    buckets[s].ys[k] = layout.y[d];
  }
  return buckets;
}

/** First index in a sorted array with value >= v. */
export function lowerBound(ys: Float32Array, v: number): number {
  let lo = 0;
  let hi = ys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ys[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Merge parent-child edges into vertical runs where x does not change; the rest are elbows. */
export function buildEdges(tree: Tree, disp: Display, layout: Layout): Edges {
  const { x, y } = layout;
  const runX: number[] = [];
  const runY0: number[] = [];
  const runY1: number[] = [];
  const runActive: number[] = [];
  const ep: number[] = [];
  const ec: number[] = [];
  const ea: number[] = [];
  const runOf = new Int32Array(disp.m).fill(-1);
  // Display nodes are numbered parents first, so a parent's run exists before its child.
  for (let d = 0; d < disp.m; d++) {
    const p = disp.dparent[d];
    if (p < 0) continue;
    const active = tree.onActive[disp.entry[d]] && tree.onActive[disp.entry[p]] ? 1 : 0;
    if (Math.abs(x[d] - x[p]) < 1e-3) {
      const r = runOf[p];
      if (r >= 0 && runY1[r] === y[p] && runActive[r] === active) {
        runY1[r] = y[d];
        runOf[d] = r;
      } else {
        runOf[d] = runX.length;
        runX.push(x[p]);
        runY0.push(y[p]);
        runY1.push(y[d]);
        runActive.push(active);
      }
    } else {
      ep.push(p);
      ec.push(d);
      ea.push(active);
    }
  }
  return {
    runX: Float32Array.from(runX),
    runY0: Float32Array.from(runY0),
    runY1: Float32Array.from(runY1),
    runActive: Uint8Array.from(runActive),
    elbowParent: Int32Array.from(ep),
    elbowChild: Int32Array.from(ec),
    elbowActive: Uint8Array.from(ea),
  };
}

/** Kept spans and cut points of the compactions, mapped onto display nodes. */
export function compactionMarks(cols: Columns, tree: Tree, disp: Display, layout?: Layout): CompactionMark[] {
  const out: CompactionMark[] = [];
  for (const c of cols.compactions) {
    const dc = disp.nodeOf[c.index];
    if (dc < 0) continue;
    let span: number[] = [];
    let cutAt = dc;
    if (c.firstKept >= 0) {
      let found = false;
      const nodes: number[] = [dc];
      for (let v = tree.parent[c.index], steps = 0; v >= 0 && steps <= cols.n; v = tree.parent[v], steps++) {
        const d = disp.nodeOf[v];
        if (d >= 0 && nodes[nodes.length - 1] !== d) nodes.push(d);
        if (v === c.firstKept) {
          found = true;
          break;
        }
      }
      if (found) {
        span = layout ? simplify(nodes, layout) : nodes;
        const dk = disp.nodeOf[c.firstKept];
        if (dk >= 0) cutAt = dk;
      }
    }
    out.push({ span, cutAt, tokensBefore: c.tokensBefore });
  }
  return out;
}

/** Keep the ends and the nodes where x changes on either side. */
function simplify(nodes: number[], layout: Layout): number[] {
  if (nodes.length <= 2) return nodes;
  const { x } = layout;
  const out = [nodes[0]];
  for (let j = 1; j < nodes.length - 1; j++) {
    const d = nodes[j];
    if (x[d] !== x[nodes[j - 1]] || x[d] !== x[nodes[j + 1]]) out.push(d);
  }
  out.push(nodes[nodes.length - 1]);
  return out;
}

/** Display nodes ordered by depth level (counting sort); start[l] is where level l begins. */
function byLevel(disp: Display, layout: Layout): { order: Int32Array; start: Int32Array } {
  const dy = layout.dy || 1;
  let maxLevel = 0;
  const level = new Int32Array(disp.m);
  for (let d = 0; d < disp.m; d++) {
    const l = Math.max(0, Math.round(layout.y[d] / dy));
    level[d] = l;
    if (l > maxLevel) maxLevel = l;
  }
  const start = new Int32Array(maxLevel + 2);
  for (let d = 0; d < disp.m; d++) start[level[d] + 1]++;
  for (let l = 0; l <= maxLevel; l++) start[l + 1] += start[l];
  const fill = start.slice();
  const order = new Int32Array(disp.m);
  for (let d = 0; d < disp.m; d++) order[fill[level[d]]++] = d;
  return { order, start };
}

/** For each node, the room to its right before the next node at the same depth. */
export function rightGaps(disp: Display, layout: Layout): Float32Array {
  const { x } = layout;
  const gap = new Float32Array(disp.m).fill(Infinity);
  const { order, start } = byLevel(disp, layout);
  for (let l = 0; l + 1 < start.length; l++) {
    const a = start[l];
    const b = start[l + 1];
    if (b - a < 2) continue;
    const row = Array.from(order.subarray(a, b)).sort((p, q) => x[p] - x[q]);
    for (let j = 0; j + 1 < row.length; j++) gap[row[j]] = x[row[j + 1]] - x[row[j]];
  }
  return gap;
}

/** Everything the renderer needs for one layout. */
export function buildScene(
  cols: Columns,
  tree: Tree,
  disp: Display,
  layout: Layout,
  view: "tree" | "branches",
  box: { base: number; max: number } = { base: 105, max: 210 },
): Scene {
  return {
    kind: "tidy",
    cols,
    tree,
    disp,
    layout,
    buckets: bucketize(cols, disp, layout),
    rightGap: rightGaps(disp, layout),
    edges: buildEdges(tree, disp, layout),
    compactions: compactionMarks(cols, tree, disp, layout),
    view,
    boxHalf: boxHalves(disp, layout, box.base, box.max),
  };
}
