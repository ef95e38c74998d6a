/**
 * Roots side by side in rows: a tidy layout puts every root of a forest on one line, so a
 * session of many roots was as wide as all of them, and at Fit all but the active one
 * folded into one box. When the roots are wider together than the room, each root's
 * subtree is moved whole, in order, into rows (shelves) as wide as the room, the way text
 * wraps. Pure: grid units, no DOM.
 */

import type { Layout } from "../ui/graphview";
import type { TreeShape } from "./layout";

/** How wide the room is, and how far each node reaches left and right of its centre. */
export interface Wrap {
  width: number;
  /** Room between two roots side by side (a plain node's cell already holds its line). */
  gap: number;
  left: (d: number) => number;
  right: (d: number) => number;
}

/** Rows of roots are this many grid rows apart (beyond their deepest node), so a root
 * below does not read as a child of the one above. */
const SHELF_GAP_ROWS = 1.25;

/** ``layout`` (of ``shape``, in place) with its roots wrapped into rows ``wrap.width``
 * wide; unchanged when they fit on one. */
export function wrapRoots(shape: TreeShape, layout: Layout, wrap: Wrap): Layout {
  const R = shape.roots.length;
  if (R < 2) return layout;
  const { x, y } = layout;
  // Each root's subtree, its nodes in one list (start offsets per root), and its extent.
  const members: number[] = [];
  const start = new Int32Array(R + 1);
  const x0 = new Float64Array(R).fill(Infinity);
  const x1 = new Float64Array(R).fill(-Infinity);
  const deep = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    start[r] = members.length;
    const stack = [shape.roots[r]];
    while (stack.length) {
      const d = stack.pop() as number;
      members.push(d);
      x0[r] = Math.min(x0[r], x[d] - wrap.left(d));
      x1[r] = Math.max(x1[r], x[d] + wrap.right(d));
      deep[r] = Math.max(deep[r], y[d]);
      for (let j = shape.childStart[d]; j < shape.childStart[d + 1]; j++) stack.push(shape.childList[j]);
    }
  }
  start[R] = members.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let r = 0; r < R; r++) {
    lo = Math.min(lo, x0[r]);
    hi = Math.max(hi, x1[r]);
  }
  if (hi - lo <= wrap.width) return layout;
  const gapX = wrap.gap;
  let cx = 0;
  let top = 0;
  let shelfDeep = 0;
  let minX = Infinity;
  let maxX = -Infinity;
  let maxY = 0;
  for (let r = 0; r < R; r++) {
    const w = x1[r] - x0[r];
    if (cx > 0 && cx + w > wrap.width) {
      top += shelfDeep + layout.dy * SHELF_GAP_ROWS;
      cx = 0;
      shelfDeep = 0;
    }
    const sx = cx - x0[r];
    for (let j = start[r]; j < start[r + 1]; j++) {
      const d = members[j];
      x[d] += sx;
      y[d] += top;
      minX = Math.min(minX, x[d]);
      maxX = Math.max(maxX, x[d]);
      maxY = Math.max(maxY, y[d]);
    }
    shelfDeep = Math.max(shelfDeep, deep[r]);
    cx += w + gapX;
  }
  return { ...layout, minX, maxX, minY: 0, maxY };
}
