/**
 * Level of detail for the Tree view: runs of entries with nothing to point at fold into
 * one row ("27 entries · 9 tool calls · 12k tokens"), the way Git Graph and the agent's
 * /tree view fold history. Shrinking rows instead made text unreadable (3-px dots, a
 * dozen rows with text); a folded row keeps every landmark on its own readable row.
 *
 * Landmarks never fold: roots, forks, leaves, compactions and branch summaries, labelled
 * entries, entries with a problem, and the entries the caller keeps (the selection).
 * Pure: no DOM; the view decides when to fold and draws the rows.
 */

import { Kind } from "../model/constants";
import type { Columns } from "../model/data";
import type { Visible } from "../model/filter";
import type { Tree } from "../model/tree";

/** Shortest run worth a folded row (a run of two would save one row and cost a click). */
export const MIN_FOLD = 3;

/** Number of shown children of each shown entry (its children in the filtered tree). */
export function shownChildCounts(tree: Tree, vis: Visible): Int32Array {
  const count = new Int32Array(tree.n);
  for (let i = 0; i < tree.n; i++) {
    if (!vis.shown[i]) continue;
    const p = vis.vparent[i];
    if (p >= 0) count[p]++;
  }
  return count;
}

/** 1 for every shown entry that must keep its own row (see the module comment). */
export function landmarks(cols: Columns, tree: Tree, vis: Visible, keep: Iterable<number> = []): Uint8Array {
  const n = tree.n;
  const out = new Uint8Array(n);
  const kids = shownChildCounts(tree, vis);
  for (let i = 0; i < n; i++) {
    if (!vis.shown[i]) continue;
    const k = cols.kind[i];
    if (
      vis.vparent[i] < 0 ||
      kids[i] !== 1 ||
      k === Kind.Compaction ||
      k === Kind.BranchSummary ||
      cols.labels.has(i) ||
      cols.problemAt.has(i)
    )
      out[i] = 1;
  }
  for (const i of keep) if (i >= 0 && i < n && vis.shown[i]) out[i] = 1;
  return out;
}

/**
 * The folded run holding each shown entry: the index of the run's first entry, or -1 for
 * an entry drawn on its own row. A run is a maximal chain of non-landmark entries, each
 * the only shown child of the one before; runs shorter than ``minRun`` and runs whose
 * first entry is in ``unfolded`` stay open. Linear in the number of entries.
 */
export function foldRuns(
  cols: Columns,
  tree: Tree,
  vis: Visible,
  opts: { keep?: Iterable<number>; unfolded?: ReadonlySet<number>; minRun?: number } = {},
): Int32Array {
  const n = tree.n;
  const mark = landmarks(cols, tree, vis, opts.keep ?? []);
  const minRun = opts.minRun ?? MIN_FOLD;
  const head = new Int32Array(n).fill(-1);
  const size = new Map<number, number>();
  // Parents first: an entry joins its parent's run when neither is a landmark (a
  // non-landmark has exactly one shown child, so the chain cannot branch).
  for (const i of tree.order) {
    if (!vis.shown[i] || mark[i]) continue;
    const p = vis.vparent[i];
    const h = p >= 0 && !mark[p] ? head[p] : i;
    head[i] = h;
    size.set(h, (size.get(h) ?? 0) + 1);
  }
  const unfolded = opts.unfolded;
  for (let i = 0; i < n; i++) {
    const h = head[i];
    if (h >= 0 && ((size.get(h) ?? 0) < minRun || unfolded?.has(h))) head[i] = -1;
  }
  return head;
}

/** How many rows the Tree view draws with these folds: one per landmark or open entry,
 * one per folded run. */
export function foldedRowCount(vis: Visible, fold: Int32Array): number {
  let rows = 0;
  for (let i = 0; i < fold.length; i++) if (vis.shown[i] && (fold[i] < 0 || fold[i] === i)) rows++;
  return rows;
}
