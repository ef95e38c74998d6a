/**
 * What the commit-graph renderer needs, precomputed once per layout: the vertical lane
 * lines as per-lane sorted row intervals (so a frame finds the lines crossing its rows
 * by binary search), each row's landmark rank for the overview, and the context cuts.
 */

import { Kind } from "../model/constants";
import type { Columns } from "../model/data";
import type { Display } from "../model/display";
import type { LaneLayout } from "./lanes";
import type { Tree } from "../model/tree";

/** Landmark ranks: which rows keep their text when rows are too dense for every text. */
export const Rank = { None: 0, Marked: 1, Leaf: 2, BranchStart: 3 } as const;

export interface LaneScene {
  kind: "lanes";
  cols: Columns;
  tree: Tree;
  disp: Display;
  layout: LaneLayout;
  /** Lines of lane l are spans laneStart[l] .. laneStart[l + 1]), sorted by first row. */
  laneStart: Int32Array;
  spanR0: Int32Array;
  spanR1: Int32Array;
  spanActive: Uint8Array;
  /** Landmark rank of each row (see ``Rank``). */
  rank: Uint8Array;
  /** Rows where the context was cut (first kept entry), with the tokens before. */
  cutRow: Int32Array;
  cutTokens: Float64Array;
  /** Rows that hold a compaction (drawn with its own band). */
  compactionRow: Int32Array;
  /** What each folded row of a side group, other roots or a main-line stretch says, by
   * head entry (``aggregate.ts``). */
  foldLabels: ReadonlyMap<number, string>;
}

/** Precompute the lane lines, landmarks and cuts for a lane layout. */
export function buildLaneScene(
  cols: Columns,
  tree: Tree,
  disp: Display,
  layout: LaneLayout,
  foldLabels: ReadonlyMap<number, string> = new Map(),
): LaneScene {
  const m = disp.m;
  const { lane, row } = layout;
  // Vertical lines: parent -> child in the same lane (the branch goes on).
  const perLane = new Int32Array(layout.lanes + 1);
  for (let d = 0; d < m; d++) {
    const p = disp.dparent[d];
    if (p >= 0 && lane[p] === lane[d]) perLane[lane[d] + 1]++;
  }
  for (let l = 0; l < layout.lanes; l++) perLane[l + 1] += perLane[l];
  const n = perLane[layout.lanes];
  const spanR0 = new Int32Array(n);
  const spanR1 = new Int32Array(n);
  const spanActive = new Uint8Array(n);
  const fill = perLane.slice(0, layout.lanes);
  // Walk rows top to bottom so each lane's spans come out sorted by first row.
  for (let r = 0; r < m; r++) {
    const d = layout.byRow[r];
    const p = disp.dparent[d];
    if (p < 0 || lane[p] !== lane[d]) continue;
    const j = fill[lane[d]]++;
    spanR0[j] = row[p];
    spanR1[j] = r;
    spanActive[j] = tree.onActive[disp.entry[d]] && tree.onActive[disp.entry[p]] ? 1 : 0;
  }
  // Spans were filled in order of their last row; in one lane they never overlap, so that
  // is also the order of their first rows.

  const rank = new Uint8Array(m);
  for (let r = 0; r < m; r++) {
    const d = layout.byRow[r];
    const i = disp.entry[d];
    const p = disp.dparent[d];
    const leaf = disp.childStart[d + 1] === disp.childStart[d];
    if (p < 0 || lane[p] !== lane[d]) rank[r] = Rank.BranchStart;
    else if (disp.isSeg[d]) rank[r] = Rank.Marked;
    else if (leaf) rank[r] = Rank.Leaf;
    else if (cols.kind[i] === Kind.Compaction || cols.kind[i] === Kind.BranchSummary || cols.labels.has(i) || cols.problemAt.has(i)) rank[r] = Rank.Marked;
  }

  const cutRow: number[] = [];
  const cutTokens: number[] = [];
  const compactionRow: number[] = [];
  for (const c of cols.compactions) {
    // a folded row says how many compactions it holds; only a compaction's own row has
    // the band, and only a kept entry's own row the cut
    const dc = disp.nodeOf[c.index];
    if (dc >= 0 && !disp.isSeg[dc]) compactionRow.push(row[dc]);
    const dk = c.firstKept >= 0 ? disp.nodeOf[c.firstKept] : -1;
    if (dk >= 0 && !disp.isSeg[dk]) {
      cutRow.push(row[dk]);
      cutTokens.push(c.tokensBefore);
    }
  }
  return {
    kind: "lanes",
    cols,
    tree,
    disp,
    layout,
    laneStart: perLane,
    spanR0,
    spanR1,
    spanActive,
    rank,
    cutRow: Int32Array.from(cutRow),
    cutTokens: Float64Array.from(cutTokens),
    compactionRow: Int32Array.from(compactionRow),
    foldLabels,
  };
}

/** Visit the spans of every lane that cross rows [r0, r1]. */
export function eachSpanIn(s: LaneScene, r0: number, r1: number, fn: (lane: number, a: number, b: number, active: number) => void): void {
  for (let l = 0; l < s.layout.lanes; l++) {
    let lo = s.laneStart[l];
    let hi = s.laneStart[l + 1];
    // first span whose last row is >= r0
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s.spanR1[mid] < r0) lo = mid + 1;
      else hi = mid;
    }
    for (let j = lo; j < s.laneStart[l + 1] && s.spanR0[j] <= r1; j++) fn(l, s.spanR0[j], s.spanR1[j], s.spanActive[j]);
  }
}

/** Rows whose text is drawn when rows are ``rowPx`` apart on screen: every row when
 * there is room, else the landmarks, best rank first, at least ``minGap`` px apart. */
export function textRows(s: LaneScene, r0: number, r1: number, rowPx: number, minGap: number): number[] {
  const out: number[] = [];
  if (r1 < r0) return out;
  if (rowPx >= minGap - 1e-6) {
    for (let r = r0; r <= r1; r++) out.push(r);
    return out;
  }
  // One pick per slot of minGap px: the best rank, the first on a tie.
  const perSlot = minGap / rowPx;
  const picks = new Map<number, number>();
  for (let r = r0; r <= r1; r++) {
    const rk = s.rank[r];
    if (!rk) continue;
    const slot = Math.floor(r / perSlot);
    const prev = picks.get(slot);
    if (prev === undefined || rk > s.rank[prev]) picks.set(slot, r);
  }
  let last = -Infinity;
  for (const r of [...picks.values()].sort((a, b) => a - b)) {
    if ((r - last) * rowPx < minGap) continue;
    out.push(r);
    last = r;
  }
  return out;
}
