// What part of the Tree the camera shows and what lies under a point: the Fit transform
// of the lanes, the window of rows the overview strip marks, the row under the pointer.
// Pure: no DOM.
import { ZoomTransform } from "d3-zoom";
import type { Hit, Transform } from "../ui/graphview";
import type { LaneScene } from "./lanescene";
import { LANE_SPACING } from "./lanes";
import { ALL_TEXT_FROM_PX, LANE_LEFT } from "./lanesdraw";

/** The smallest Tree scale: rows far enough apart that every row keeps its text. Below
 * it rows would shrink to dots; the view folds runs of entries instead (``fold.ts``). */
export const MIN_ROW_K = ALL_TEXT_FROM_PX / LANE_SPACING.dy;

/** Rows that fit a stage ``height`` px tall at the readable pitch (Fit's row budget). */
export function rowBudget(height: number): number {
  return Math.max(3, Math.floor((Math.max(height, 50) - 24) / (LANE_SPACING.dy * MIN_ROW_K) + 1e-6));
}

/** The transform that shows every row on screen at a pitch of at most 1.5x and at least
 * ``MIN_ROW_K`` (from the top when the rows do not fit; lanes keep their pixel pitch, so
 * branches stay apart at any size). */
export function fitLanes(scene: LaneScene, height: number): ZoomTransform {
  const layout = scene.layout;
  const rows = layout.maxY + layout.dy;
  const H = Math.max(height, 50);
  const k = Math.max(Math.min((H - 24) / Math.max(rows, 1), 1.5), MIN_ROW_K);
  const y = Math.max(12, (H - rows * k) / 2) + (layout.dy * k) / 2;
  return new ZoomTransform(k, LANE_LEFT, y);
}

/** Fractions (top, bottom) of the session's rows on screen, or null when every row is
 * (no overview needed) or the scene has no rows. */
export function rowWindow(scene: LaneScene, t: { k: number; y: number }, height: number): [number, number] | null {
  if (!scene.disp.m) return null;
  const total = scene.disp.m * scene.layout.dy * t.k;
  if (total <= height * 1.2) return null;
  return [-t.y / total, (height - t.y) / total];
}

/** The display node on the row at fraction ``f`` (0 top, 1 bottom), or -1. */
export function nodeAtFraction(scene: LaneScene, f: number): number {
  if (!scene.disp.m) return -1;
  const m = scene.disp.m;
  return scene.layout.byRow[Math.min(m - 1, Math.max(0, Math.round(f * (m - 1))))];
}

/** The row under a point: the row's node, or its text to the right of it (a whole row is
 * one target); nothing left of the node (other lanes). */
export function hitLane(
  px: number,
  py: number,
  t: Transform,
  layout: { x: Float32Array; dy: number; byRow: Int32Array },
  m: number,
): Hit {
  if (!m) return null;
  const rowPx = layout.dy * t.k;
  const r = Math.round((py - t.y) / rowPx);
  if (r < 0 || r >= m) return null;
  if (Math.abs(py - (r * rowPx + t.y)) > Math.max(rowPx / 2, 5)) return null;
  const d = layout.byRow[r];
  return px >= layout.x[d] + t.x - 10 ? { type: "node", d } : null;
}
