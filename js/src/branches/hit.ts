// What lies under a point of the Branches canvas: a segment box, a node, or a "collapse"
// badge.
import { quadtree, type Quadtree } from "d3-quadtree";
import type { Display } from "../model/display";
import { screenRadius } from "../ui/canvas";
import type { Hit, Layout, Transform } from "../ui/graphview";
import { SEG_H, SEG_W } from "./draw";

/** A spatial index of the display nodes, built once per layout. */
export function nodeIndex(layout: Layout, m: number): Quadtree<number> {
  const ids = new Array<number>(m);
  for (let d = 0; d < m; d++) ids[d] = d;
  return quadtree<number>()
    .x((d) => layout.x[d])
    .y((d) => layout.y[d])
    .addAll(ids);
}

/** The thing under canvas point (px, py): badges first, then the nearest node if the
 * point falls inside its drawn shape (with a few pixels of slack). */
export function hitTest(
  px: number,
  py: number,
  t: Transform,
  disp: Display,
  layout: Layout,
  kinds: ArrayLike<number>,
  index: () => Quadtree<number>,
  boxHalf?: Float32Array,
): Hit {
  const k = t.k;
  const { x, y } = layout;
  for (const h of disp.expandedHeads) {
    const d = disp.nodeOf[h];
    if (d < 0) continue;
    const bx = x[d] * k + t.x - Math.max(16 * k, 8);
    const by = y[d] * k + t.y;
    if (Math.hypot(px - bx, py - by) <= Math.max(6 * k, 4) + 3) return { type: "badge", head: h };
  }
  if (!disp.m) return null;
  const wx = (px - t.x) / k;
  const wy = (py - t.y) / k;
  const radius = Math.max(SEG_W + 4, 10 / k);
  const d = index().find(wx, wy, radius);
  if (d === undefined) return null;
  const sx = x[d] * k + t.x;
  const sy = y[d] * k + t.y;
  if (disp.isSeg[d]) {
    const hw = Math.max((boxHalf?.[d] || SEG_W / 2) * 2 * k, 6) / 2 + 3;
    const hh = Math.max(SEG_H * k, 4) / 2 + 3;
    return Math.abs(px - sx) <= hw && Math.abs(py - sy) <= hh ? { type: "node", d } : null;
  }
  const r = screenRadius(kinds[disp.entry[d]], k);
  return Math.hypot(px - sx, py - sy) <= Math.max(r + 4, 7) ? { type: "node", d } : null;
}
