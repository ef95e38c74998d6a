/**
 * The commit-graph layout of the tree view (like `git log --graph`): one row per drawn
 * entry, branch lanes at the left, the text column at the right of the lanes in use.
 *
 * Row order is depth-first with each fork's side branches first and its main branch last,
 * so a branch's rows are contiguous and read top to bottom, and the active path runs
 * straight down lane 0 from the root to the active leaf at the bottom. Time order was the
 * other choice: it interleaves branches that were worked on by turns, so a branch's rows
 * scatter and its lane stays open across rows that are not its own. The main child of a
 * fork is the one on the active path, else the one whose subtree was written to last.
 * Lanes are reused once a branch ends, so the width is the nesting depth of open
 * branches, not the number of leaves. Linear in the number of nodes (lane search aside).
 */

import type { Columns } from "../model/data";
import type { Display } from "../model/display";
import type { Layout } from "../ui/graphview";
import type { Tree } from "../model/tree";

export interface LaneLayout extends Layout {
  /** lane of each display node */
  lane: Int32Array;
  /** row of each display node */
  row: Int32Array;
  /** display node drawn on each row */
  byRow: Int32Array;
  /** world x where each row's text starts: right of every lane open on that row */
  textX: Float32Array;
  /** most lanes open at once */
  lanes: number;
}

export const LANE_SPACING = { dx: 16, dy: 24 } as const;
/** World units between the last open lane and the text. */
export const TEXT_GAP = 14;

/** Lay the display graph out in rows and lanes (see the module comment). */
export function layoutLanes(
  cols: Columns,
  tree: Tree,
  disp: Display,
  dx: number = LANE_SPACING.dx,
  dy: number = LANE_SPACING.dy,
): LaneLayout {
  const m = disp.m;
  const x = new Float32Array(m);
  const y = new Float32Array(m);
  const lane = new Int32Array(m);
  const row = new Int32Array(m);
  const byRow = new Int32Array(m);
  const textX = new Float32Array(m);
  if (m === 0) return { x, y, minX: 0, maxX: 0, minY: 0, maxY: 0, dx, dy, lane, row, byRow, textX, lanes: 0 };

  // Latest time written under each node: display nodes are numbered parents first.
  const latest = new Float64Array(m);
  for (let d = 0; d < m; d++) latest[d] = cols.time[disp.entry[d]] || 0;
  for (let d = m - 1; d >= 0; d--) {
    const p = disp.dparent[d];
    if (p >= 0 && latest[d] > latest[p]) latest[p] = latest[d];
  }
  const onActive = (d: number): boolean => tree.onActive[disp.entry[d]] === 1;
  const mainChild = (d: number): number => {
    const s = disp.childStart[d];
    const e = disp.childStart[d + 1];
    if (e === s) return -1;
    let best = disp.childList[s];
    for (let j = s; j < e; j++) {
      const c = disp.childList[j];
      if (onActive(c)) return c;
      if (latest[c] > latest[best]) best = c;
    }
    return best;
  };

  // Open lanes: open[l] is 1 while lane l holds a branch still to be continued.
  const open: number[] = [];
  let maxOpen = -1;
  const take = (from: number): number => {
    let l = from;
    while (l < open.length && open[l]) l++;
    if (l === open.length) open.push(0);
    open[l] = 1;
    if (l > maxOpen) maxOpen = l;
    return l;
  };
  const release = (l: number): void => {
    open[l] = 0;
    while (maxOpen >= 0 && !open[maxOpen]) maxOpen--;
  };

  // Roots: the one holding the active path first (lane 0), the others (orphans) after.
  const roots = Array.from(disp.roots);
  const activeRoot = roots.findIndex(onActive);
  if (activeRoot > 0) roots.unshift(...roots.splice(activeRoot, 1));
  const lane0Free = activeRoot < 0;

  // Iterative DFS; a pushed lane of -1 means "take a free lane when visited".
  const stackNode: number[] = [];
  const stackLane: number[] = [];
  for (let j = roots.length - 1; j >= 0; j--) {
    stackNode.push(roots[j]);
    stackLane.push(-1);
  }
  let r = 0;
  let lanes = 0;
  let first = true;
  while (stackNode.length) {
    const d = stackNode.pop() as number;
    let l = stackLane.pop() as number;
    if (l < 0) l = first && (lane0Free || onActive(d)) ? take(0) : take(1);
    first = false;
    lane[d] = l;
    row[d] = r;
    byRow[r] = d;
    x[d] = l * dx;
    y[d] = r * dy;
    textX[r] = (maxOpen + 1) * dx - dx / 2 + TEXT_GAP;
    if (maxOpen + 1 > lanes) lanes = maxOpen + 1;
    r++;
    const main = mainChild(d);
    if (main < 0) {
      release(l);
      continue;
    }
    // The main child continues this lane, after every side branch (pushed first = popped last).
    stackNode.push(main);
    stackLane.push(l);
    const s = disp.childStart[d];
    const e = disp.childStart[d + 1];
    for (let j = e - 1; j >= s; j--) {
      const c = disp.childList[j];
      if (c === main) continue;
      stackNode.push(c);
      stackLane.push(-1);
    }
  }
  return { x, y, minX: 0, maxX: (lanes - 1) * dx, minY: 0, maxY: (m - 1) * dy, dx, dy, lane, row, byRow, textX, lanes };
}
