/** The Branches view's drawing: its scene in screen coordinates, culled to the viewport,
 * as a row of named passes over one frame (bands, edges, hits, nodes, boxes, labels,
 * cuts, first lines, badges, rings), each drawn over the ones before. */

import type { Marks, Theme, Transform } from "../ui/canvas";
import { drawBoxes, drawLabelsUnderBoxes } from "./drawbox";
import { drawCompactionBands, drawEdges, drawHitHalos, drawNodeShapes, drawRasterNodes } from "./drawshapes";
import { drawCollapseBadges, drawContextCuts, drawEntryLabels, drawFirstLines, drawRings } from "./drawtext";
import { newFrame, type TidyDrawStats } from "./frame";
import type { Scene } from "./scene";

export type { Scene } from "./scene";
export type { DrawnText, TidyDrawStats } from "./frame";
export { boxHasHit } from "./drawbox";
export { BOX_TEXT_FROM_PX, SEG_H, SEG_W } from "./aggregate";

/** Zoom from which first lines are drawn beside the nodes. */
export const LINES_FROM_ZOOM = 0.75;

/** Draw the scene, pass by pass, each over the ones before. Returns what was drawn and
 * how long it took. */
export function draw(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  t: Transform,
  width: number,
  height: number,
  dpr: number,
  theme: Theme,
  marks: Marks,
): TidyDrawStats {
  const t0 = performance.now();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, width, height);
  if (scene.disp.m === 0) return { nodes: 0, edges: 0, ms: performance.now() - t0, texts: [], landmarks: [] };

  const f = newFrame(ctx, scene, t, width, height, dpr, theme, marks);
  if (f.raster) drawRasterNodes(f);
  if (scene.compactions.length) drawCompactionBands(f);
  drawEdges(f);
  if (marks.hits) drawHitHalos(f, marks.hits);
  if (!f.raster) drawNodeShapes(f);
  drawBoxes(f);
  if (f.labelUnder.length) drawLabelsUnderBoxes(f);
  if (scene.cols.labels.size) drawEntryLabels(f);
  if (scene.compactions.length) drawContextCuts(f);
  let missingLines = marks.lines && f.k >= LINES_FROM_ZOOM ? drawFirstLines(f, marks.lines) : undefined;
  drawCollapseBadges(f);
  drawRings(f);
  if (f.wantLines.length) missingLines = [...(missingLines ?? []), ...f.wantLines];
  return { nodes: f.nodes, edges: f.edges, ms: performance.now() - t0, missingLines, texts: f.texts, landmarks: f.landmarks };
}
