// What part of the Branches view the camera shows: the Fit transform of a picture and the
// transform that frames a part of it. Pure: no DOM.
import { ZoomTransform } from "d3-zoom";
import type { Layout } from "../ui/graphview";
import { FIT_PAD, LINE_PX, NODE_HALF, READABLE_K, SEG_H, TAG_ROOM } from "./aggregate";
import type { Scene } from "./scene";

/** The most Fit zooms in: a small session is shown at its natural size. */
export const FIT_MAX_K = 1;

/** World extent of display nodes ``nodes`` (all when omitted) at scale ``k``: boxes at
 * the width they are drawn, plain nodes with their first line. */
export function extent(scene: Scene, layout: Layout, nodes?: Iterable<number>, k = 1): { x0: number; x1: number; y0: number; y1: number } {
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  const each = nodes ?? Array.from({ length: scene.disp.m }, (_, d) => d);
  for (const d of each) {
    const half = scene.boxHalf[d] || NODE_HALF;
    const right = scene.boxHalf[d] || Math.min(scene.rightGap[d], LINE_PX / k);
    x0 = Math.min(x0, layout.x[d] - half);
    x1 = Math.max(x1, layout.x[d] + right);
    y0 = Math.min(y0, layout.y[d] - SEG_H / 2);
    y1 = Math.max(y1, layout.y[d] + SEG_H / 2);
  }
  return { x0, x1, y0, y1 };
}

/** The transform that shows nodes ``nodes`` (all when omitted) whole and centred, boxes
 * uncut at every edge, at most at ``FIT_MAX_K``. When even that is too small to read (a
 * stage too small for the coarsest picture), the top of the picture at the least
 * readable scale. */
export function fitBranches(scene: Scene, layout: Layout, width: number, height: number, nodes?: Iterable<number>): ZoomTransform {
  const W = Math.max(width, 50);
  const H = Math.max(height, 50);
  if (!scene.disp.m) return new ZoomTransform(1, W / 2, H / 2);
  const list = nodes ? Array.from(nodes) : undefined;
  // A first line's world width depends on the scale: measure at 1:1, then at the scale
  // that gives (twice, which settles it).
  let k = FIT_MAX_K;
  let e = extent(scene, layout, list, k);
  for (let pass = 0; pass < 3; pass++) {
    e = extent(scene, layout, list, Math.max(k, READABLE_K));
    k = Math.min((W - 2 * FIT_PAD) / Math.max(e.x1 - e.x0, 1), (H - 2 * FIT_PAD - TAG_ROOM) / Math.max(e.y1 - e.y0, 1), FIT_MAX_K);
  }
  const cx = (e.x0 + e.x1) / 2;
  if (k >= READABLE_K) return new ZoomTransform(k, W / 2 - cx * k, (H - TAG_ROOM) / 2 - ((e.y0 + e.y1) / 2) * k);
  k = READABLE_K;
  return new ZoomTransform(k, W / 2 - cx * k, FIT_PAD - e.y0 * k);
}
