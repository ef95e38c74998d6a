/** One frame of the Branches drawing: the view's geometry in screen pixels, culling to
 * the viewport, and what each pass hands on to the ones after it (counts, the texts
 * drawn, the room text already takes). */

import { KIND_STYLES, Kind } from "../model/constants";
import { lowerBound, type Scene } from "./scene";
import { SEG_H, SEG_W } from "./aggregate";
import type { DrawStats, Marks, Theme, Transform } from "../ui/canvas";

/** A text drawn on the canvas, in screen pixels, with the display node it names (-1:
 * none). Page tests check none overlap and every box on screen has one. */
export interface DrawnText {
  d: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface TidyDrawStats extends DrawStats {
  texts: DrawnText[];
  /** Boxes and labelled entries on screen (display nodes): each must carry its text. */
  landmarks: number[];
}


/** Below this many screen pixels of radius, nodes are written straight into pixels. */
export const RASTER_BELOW = 2.2;

export type Bucket = { nodes: Int32Array; ys: Float32Array };
export type Box = { x: number; y: number; w: number; h: number };

/** One drawing of the scene: the view's geometry, and what the passes hand on to the ones
 * after them (counts, the texts drawn, the room text already takes). */
export interface Frame {
  ctx: CanvasRenderingContext2D;
  scene: Scene;
  width: number;
  height: number;
  dpr: number;
  theme: Theme;
  marks: Marks;
  t: Transform;
  k: number;
  /** Screen pixels beyond the edges still drawn, so shapes leave the view whole. */
  margin: number;
  halfDy: number;
  segH: number;
  /** Far away: nodes are written into pixels rather than drawn as shapes. */
  raster: boolean;
  sx: (d: number) => number;
  sy: (d: number) => number;
  inView: (px: number, py: number) => boolean;
  /** Visit the nodes of a bucket that are in view. */
  eachInView: (bucket: Bucket, fn: (d: number, px: number, py: number) => void) => void;
  /** Screen width of box d: its own, as wide as its neighbours leave room for. */
  boxW: (d: number) => number;
  nodes: number;
  edges: number;
  /** Nodes in view with an error, ringed once the nodes are drawn. */
  errNodes: number[];
  texts: DrawnText[];
  landmarks: number[];
  /** What text must not cover: boxes, then every text drawn outside a box. */
  occupied: DrawnText[];
  /** Labels of boxes too short to hold them, drawn under the box later. */
  labelUnder: [number, string][];
  /** Per labelled node, the width its tag takes (first lines start after it). */
  labelEnd: Map<number, number>;
  /** Entries a box's title wants the first line of. */
  wantLines: number[];
}

export function newFrame(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  t: Transform,
  width: number,
  height: number,
  dpr: number,
  theme: Theme,
  marks: Marks,
): Frame {
  const { layout } = scene;
  const { x: lx, y: ly } = layout;
  const k = t.k;
  const margin = 40;
  // World y range in view (with room for boxes and labels).
  const wy0 = (-margin - 40 - t.y) / k;
  const wy1 = (height + margin + 40 - t.y) / k;
  const wx0 = (-margin - 40 - t.x) / k - SEG_W;
  const wx1 = (width + margin + 40 - t.x) / k + SEG_W;
  return {
    ctx,
    scene,
    width,
    height,
    dpr,
    theme,
    marks,
    t,
    k,
    margin,
    halfDy: (layout.dy / 2) * k,
    segH: Math.max(SEG_H * k, 4),
    raster: KIND_STYLES[Kind.Compaction].r * k < RASTER_BELOW,
    sx: (d) => lx[d] * k + t.x,
    sy: (d) => ly[d] * k + t.y,
    inView: (px, py) => px > -margin && px < width + margin && py > -margin && py < height + margin,
    eachInView: (bucket, fn) => {
      const a = lowerBound(bucket.ys, wy0);
      const b = lowerBound(bucket.ys, wy1);
      for (let j = a; j < b; j++) {
        const d = bucket.nodes[j];
        const wx = lx[d];
        if (wx < wx0 || wx > wx1) continue;
        fn(d, wx * k + t.x, bucket.ys[j] * k + t.y);
      }
    },
    boxW: (d) => Math.max((scene.boxHalf[d] || SEG_W / 2) * 2 * k, 6),
    nodes: 0,
    edges: 0,
    errNodes: [],
    texts: [],
    landmarks: [],
    occupied: [],
    labelUnder: [],
    labelEnd: new Map(),
    wantLines: [],
  };
}

/** Whether a text of ``px`` px set from ``x`` with its middle at ``y`` lies whole on the
 * stage, top to bottom and from its left end: a text is drawn whole or not at all (its
 * right end is fitted to the stage by the caller). */
export function onStage(f: Frame, x: number, y: number, px: number): boolean {
  return x >= 0 && x < f.width && y - px / 2 - 1 >= 0 && y + px / 2 + 1 <= f.height;
}

/** Whether a box would cover a box or a text already drawn outside boxes. */
export function collides(f: Frame, r: Box): boolean {
  return f.occupied.some((o) => r.x < o.x + o.w && o.x < r.x + r.w && r.y < o.y + o.h && o.y < r.y + r.h);
}

/** Room to the right of x on a text line before the first box or text on it. */
export function roomRight(f: Frame, x: number, y0: number, y1: number): number {
  let room = Infinity;
  for (const o of f.occupied) {
    if (o.y >= y1 || o.y + o.h <= y0 || o.x + o.w <= x) continue;
    room = Math.min(room, o.x - x);
  }
  return room;
}
