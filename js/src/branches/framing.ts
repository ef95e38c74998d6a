// What part of the Branches view the camera shows: its Fit transform. Pure: no DOM.
import { ZoomTransform, zoomIdentity } from "d3-zoom";
import type { Layout } from "../ui/graphview";
import { fitBox } from "../ui/viewport";
import { BRANCH_MIN_K, SEG_H, SEG_W } from "./draw";
import type { Scene } from "./scene";

/** The scale of a Fit that cannot show everything; boxes then hold their title and
 * figures with room to spare. */
export const FALLBACK_BRANCH_K = 0.85;

/** The transform that shows the whole box, centred; when that would be too small to
 * read, from the top at a comfortable scale. */
export function fitBranches(scene: Scene, layout: Layout, width: number, height: number): ZoomTransform {
  const f = fitBox(layout, SEG_W, SEG_H, width, height);
  if (f.k >= BRANCH_MIN_K) return zoomIdentity.translate(f.x, f.y).scale(f.k);
  // Too big to fit readably (the view has already drawn side subtrees as single boxes):
  // from the top at a comfortable scale (``FALLBACK_BRANCH_K``, or larger if the width
  // allows); centred if it fits across, else on the first root.
  const W = Math.max(width, 50);
  const across = (W - 60) / Math.max(layout.maxX - layout.minX + SEG_W, 1);
  const k = Math.max(FALLBACK_BRANCH_K, Math.min(across, 1));
  const root = scene.disp.m ? scene.disp.roots[0] : -1;
  const cx = across >= k || root < 0 ? (layout.minX + layout.maxX) / 2 : layout.x[root];
  return zoomIdentity.translate(W / 2 - cx * k, 30 + (SEG_H / 2) * k - layout.minY * k).scale(k);
}
