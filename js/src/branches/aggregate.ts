/**
 * Level of detail for the Branches view: when a session has more branches than fit side
 * by side at a readable scale, whole side subtrees become one box ("14 branches · 2.3k
 * entries · 410k tokens") instead of every box shrinking until it carries no text.
 *
 * The choice is greedy and pure: the largest side subtree off the active path goes
 * first (it frees the most columns), until the tree's columns fit ``capacity``. The
 * subtree holding the active leaf never folds, nor do subtrees the reader opened.
 */

import type { Display } from "../model/display";
import type { Tree } from "../model/tree";

/** Leaves (columns of the tidy layout) under each display node, itself included. */
export function leafCounts(disp: Display): Int32Array {
  const leaves = new Int32Array(disp.m);
  for (let d = disp.m - 1; d >= 0; d--) {
    if (disp.childStart[d + 1] === disp.childStart[d]) leaves[d] += 1;
    const p = disp.dparent[d];
    if (p >= 0) leaves[p] += leaves[d];
  }
  return leaves;
}

/**
 * Head entries of the subtrees to draw as one box, so that at most ``capacity`` columns
 * remain (or as few as the rule allows). Candidates are the children of forks and the
 * roots after the first, with two or more leaves, off the active path, not in ``opened``.
 */
export function chooseAggregates(disp: Display, tree: Tree, capacity: number, opened: ReadonlySet<number> = new Set()): Set<number> {
  const chosen = new Set<number>();
  if (!disp.m) return chosen;
  const leaves = leafCounts(disp);
  let total = 0;
  for (const r of disp.roots) total += leaves[r];
  if (total <= capacity) return chosen;
  const fork = (d: number): boolean => d >= 0 && disp.childStart[d + 1] - disp.childStart[d] > 1;
  const candidates: number[] = [];
  for (let d = 0; d < disp.m; d++) {
    const p = disp.dparent[d];
    const start = p >= 0 ? fork(p) : d !== disp.roots[0];
    if (!start || leaves[d] < 2) continue;
    const i = disp.entry[d];
    if (tree.onActive[i] || opened.has(i)) continue;
    candidates.push(d);
  }
  // Largest first; on a tie the one nearer the root (smaller d: parents come first).
  candidates.sort((a, b) => leaves[b] - leaves[a] || a - b);
  const inChosen = new Uint8Array(disp.m);
  for (const d of candidates) {
    if (total <= capacity) break;
    let covered = false;
    for (let a = disp.dparent[d]; a >= 0; a = disp.dparent[a]) {
      if (inChosen[a]) {
        covered = true;
        break;
      }
    }
    if (covered) continue;
    inChosen[d] = 1;
    chosen.add(disp.entry[d]);
    total -= leaves[d] - 1;
  }
  return chosen;
}

/** Columns of a tidy layout that fit ``width`` px at scale ``k`` (boxes ``boxW`` wide,
 * columns ``dx`` apart, 60 px of padding). */
export function columnCapacity(width: number, k: number, dx: number, boxW: number): number {
  return Math.max(1, Math.floor((width - 60 - boxW * k) / (dx * k * 1.25)) + 1);
}
