/**
 * Room for a fold that opens. Fit's level of detail fills the stage's rows; opening the
 * fold around a selection adds two. Those rows are taken back where they matter least:
 * main-line rows kept between two stretches ("▸ 2,300 entries") merge into them, the
 * least telling first (a plain landmark before an error, a fork, a compaction), far from
 * the entries that must keep their rows. Only the main line's stretches change; every
 * other fold stays as it was. Pure: no DOM; grid units only (rows).
 */

import { Flag, Kind } from "../model/constants";
import type { Columns } from "../model/data";
import type { Visible } from "../model/filter";
import type { Tree } from "../model/tree";
import { countRows, finish, type FoldKind, type TreeFolds } from "./aggregate";

/** How telling a main-line row is: kept longest when higher. */
function rank(cols: Columns, kids: Int32Array, i: number): number {
  if (cols.kind[i] === Kind.Compaction) return 4;
  if (kids[i] > 1 || cols.kind[i] === Kind.BranchSummary) return 3;
  if (cols.flags[i] & Flag.Error || cols.problemAt.has(i) || cols.labels.has(i)) return 2;
  return 1;
}

/**
 * ``folds`` with at least ``need`` rows fewer, main-line rows merged into the stretches
 * beside them; null when the main line has no such rows to give (the caller folds the
 * level again). The entries of ``keep`` (and the main line's root and end) keep their
 * rows, and so do the rows the kept entries hang from.
 */
export function makeRoom(cols: Columns, tree: Tree, vis: Visible, folds: TreeFolds, need: number, keep: readonly number[]): TreeFolds | null {
  const fold = folds.fold;
  if (!fold || need <= 0) return need <= 0 ? folds : null;
  const n = tree.n;
  const onMain = (i: number): boolean => tree.onActive[i] === 1 && vis.shown[i] === 1;
  const main: number[] = [];
  for (const i of tree.order) if (onMain(i)) main.push(i);
  const L = main.length;
  if (L < 3) return null;
  const posOf = new Map<number, number>();
  main.forEach((i, p) => posOf.set(i, p));
  // The main-line entry each shown entry hangs from, the rows hanging off each, and the
  // main-line rows a kept entry hangs from.
  const from = new Int32Array(n).fill(-1);
  const hanging = new Int32Array(L);
  const kids = new Int32Array(n);
  for (const i of tree.order) {
    if (!vis.shown[i]) continue;
    const p = vis.vparent[i];
    if (p >= 0) kids[p]++;
    if (onMain(i)) from[i] = i;
    else if (p >= 0 && from[p] >= 0) {
      from[i] = from[p];
      if (fold[i] < 0 || fold[i] === i) hanging[posOf.get(from[i]) as number]++;
    }
  }
  const held = new Uint8Array(L);
  held[0] = held[L - 1] = 1;
  for (const i of keep) {
    if (i < 0 || i >= n || from[i] < 0) continue;
    const p = posOf.get(from[i]) as number;
    held[p] = 1;
    // the rows beside a kept main-line entry stay too: its context
    if (p > 0) held[p - 1] = 1;
    if (p < L - 1) held[p + 1] = 1;
  }
  const next = fold.slice();
  const kinds = new Map<number, FoldKind>();
  const rootCount = new Map<number, number>();
  for (const [head, sum] of folds.summaries) {
    kinds.set(head, sum.kind);
    if (sum.roots) rootCount.set(head, sum.roots);
  }
  const stretchAt = (p: number): boolean => p >= 0 && p < L && next[main[p]] >= 0 && kinds.get(next[main[p]]) === "stretch";
  const keptAt = (p: number): boolean => next[main[p]] < 0;
  let freed = 0;
  while (freed < need) {
    // The least telling kept row next to a stretch, farthest from the held rows.
    let best = -1;
    let bestKey = Infinity;
    for (let p = 1; p < L - 1; p++) {
      if (held[p] || !keptAt(p) || !(stretchAt(p - 1) || stretchAt(p + 1))) continue;
      const key = rank(cols, kids, main[p]) * L - Math.min(p, L - 1 - p);
      if (key < bestKey) {
        bestKey = key;
        best = p;
      }
    }
    if (best < 0) return null;
    const before = stretchAt(best - 1);
    const after = stretchAt(best + 1);
    const head = before ? next[main[best - 1]] : main[best];
    const old = after ? next[main[best + 1]] : -1;
    const entry = main[best];
    for (let i = 0; i < n; i++) {
      if (!vis.shown[i]) continue;
      if (from[i] === entry || (old >= 0 && next[i] === old)) {
        if (next[i] >= 0 && next[i] !== head && next[i] !== old) kinds.delete(next[i]);
        next[i] = head;
      }
    }
    if (old >= 0 && old !== head) kinds.delete(old);
    kinds.set(head, "stretch");
    freed += 1 + hanging[best] + (before && after ? 1 : 0);
  }
  return finish(cols, tree, vis, next, countRows(vis, next), folds.level, kinds, rootCount);
}
