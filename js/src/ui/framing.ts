// What part of the graph the camera shows: the Fit transform of each layout, the window
// of rows the overview strip marks, and whether an entry is on screen. Pure: no DOM.
import { ZoomTransform, zoomIdentity } from "d3-zoom";
import type { Display } from "../model/display";
import type { LaneScene } from "../tree/lanescene";
import { LANE_SPACING } from "../tree/lanes";
import { ALL_TEXT_FROM_PX, LANE_LEFT } from "../tree/lanesdraw";
import type { Layout } from "../branches/layout";
import { BRANCH_MIN_K, SEG_H, SEG_W } from "../branches/draw";
import type { Scene } from "../branches/scene";
import { fitBox } from "./viewport";

/** Branches: the scale of a Fit that cannot show everything; boxes then hold their
 * title and figures with room to spare. */
export const FALLBACK_BRANCH_K = 0.85;

/** The smallest Tree scale: rows far enough apart that every row keeps its text. Below
 * it rows would shrink to dots; the view folds runs of entries instead (``fold.ts``). */
export const MIN_ROW_K = ALL_TEXT_FROM_PX / LANE_SPACING.dy;

/** The transform that shows the whole graph. Lanes: every row on screen at a pitch of at
 * most 1.5x and at least ``MIN_ROW_K`` (from the top when the rows do not fit; lanes keep
 * their pixel pitch, so branches stay apart at any size); a tidy layout: the whole box,
 * centred. */
export function fitTransform(scene: Scene | LaneScene, layout: Layout, width: number, height: number): ZoomTransform {
  if (scene.kind === "lanes") {
    const rows = layout.maxY + layout.dy;
    const H = Math.max(height, 50);
    const k = Math.max(Math.min((H - 24) / Math.max(rows, 1), 1.5), MIN_ROW_K);
    const y = Math.max(12, (H - rows * k) / 2) + (layout.dy * k) / 2;
    return new ZoomTransform(k, LANE_LEFT, y);
  }
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

/** Fractions (top, bottom) of the session's rows on screen, or null when every row is
 * (no overview needed) or the scene has no rows. */
export function rowWindow(scene: Scene | LaneScene, t: { k: number; y: number }, height: number): [number, number] | null {
  if (scene.kind !== "lanes" || !scene.disp.m) return null;
  const total = scene.disp.m * scene.layout.dy * t.k;
  if (total <= height * 1.2) return null;
  return [-t.y / total, (height - t.y) / total];
}

/** The display node on the row at fraction ``f`` (0 top, 1 bottom), or -1. */
export function nodeAtFraction(scene: Scene | LaneScene, f: number): number {
  if (scene.kind !== "lanes" || !scene.disp.m) return -1;
  const m = scene.disp.m;
  return scene.layout.byRow[Math.min(m - 1, Math.max(0, Math.round(f * (m - 1))))];
}

/** The display node drawing entry ``i``, or -1 (hidden, or no such entry). */
export function nodeOfEntry(disp: Display, i: number): number {
  return i >= 0 && i < disp.nodeOf.length ? disp.nodeOf[i] : -1;
}
