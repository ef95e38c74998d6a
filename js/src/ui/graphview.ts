/**
 * What the coordinator asks of a graph view (Tree, Branches). Each view owns its display
 * (folds, aggregates), layout, scene, framing, hit-testing, drawing and level of detail
 * behind this interface, so the shared UI and the coordinator know no view's insides:
 * ``ui/`` imports no view, and a view imports ``ui/`` only for shared helpers.
 */

import type { ZoomTransform } from "d3-zoom";
import type { Columns } from "../model/data";
import type { Display } from "../model/display";
import type { Visible } from "../model/filter";
import type { Tree } from "../model/tree";
import type { DrawStats, Marks, Theme, Transform } from "./canvas";

export type { Transform } from "./canvas";

/** World positions of a view's display nodes (layouts work in grid units; each view
 * scales them to world units). */
export interface Layout {
  x: Float32Array;
  y: Float32Array;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  dx: number;
  dy: number;
}

/** What lies under a point: a display node, or a badge that collapses a segment. */
export type Hit = { type: "node"; d: number } | { type: "badge"; head: number } | null;

/** The canvas size in CSS pixels. */
export interface Stage {
  width: number;
  height: number;
}

/** The data a view builds from: the columns, their tree, what the filter shows, and the
 * selected entry (kept on a row of its own). */
export interface GraphSource {
  cols: Columns;
  tree: Tree;
  vis: Visible;
  selected: number;
}

/** Where the coordinator lets a view move the camera (its overview, a click). */
export interface GraphHost {
  moveTo(t: ZoomTransform): void;
  /** A level of detail the view built in a task of its own is ready: ask the view's
   * ``zoomed`` again for the camera as it is now, and redo what follows a build. */
  rezoom?(): void;
}

export interface GraphView {
  readonly kind: "lanes" | "tidy";
  /** The display and layout of the latest ``build``. */
  readonly disp: Display;
  readonly layout: Layout;
  /** An element the view draws beside the canvas (an overview), or null. */
  readonly overlay: HTMLElement | null;
  /** Camera constraints: the pinned x offset (world x in pixels) or null, and the world
   * height every row takes (0 when free). */
  readonly fixedX: number | null;
  readonly rowsHeight: number;
  /** Counts the builds: any call that changes it rebuilt the display (the coordinator
   * then redoes what depends on it). */
  readonly version: number;

  /** Build display, layout and scene for this data on a stage of this size. */
  build(src: GraphSource, stage: Stage): void;
  /** Whether a stage of this size would build something else than the current one. */
  stale(src: GraphSource, stage: Stage): boolean;
  /** The transform that shows the whole session, readable (building the level of detail
   * it needs). */
  fit(stage: Stage): ZoomTransform;
  /** The least and greatest scale the reader may zoom to. */
  scaleExtent(stage: Stage): [number, number];
  /** The thing under canvas point (px, py). */
  hit(px: number, py: number, t: Transform, stage: Stage): Hit;
  /** Draw one frame. */
  draw(ctx: CanvasRenderingContext2D, t: Transform, stage: Stage, dpr: number, theme: Theme, marks: Marks): DrawStats;
  /** The reader zoomed from scale ``before`` to ``t``: open or close aggregates. Returns
   * the transform that keeps the reader's place when the view rebuilt, else null. */
  zoomed(src: GraphSource, stage: Stage, t: ZoomTransform, before: number): ZoomTransform | null;
  /** A click on a hit: open what it aggregates, or toggle what it groups. Returns the
   * transform to show afterwards (or the current one) when it changed the view; null
   * when the hit is a plain node the coordinator selects. */
  press(src: GraphSource, stage: Stage, hit: Exclude<Hit, null>, t: ZoomTransform): ZoomTransform | null;
  /** Keyboard: open or close the group holding ``entry``; true if it rebuilt. */
  toggle(src: GraphSource, stage: Stage, entry: number): boolean;
  /** Open whatever hides ``entry`` (a fold, an aggregate, a run); true if it rebuilt. */
  reveal(src: GraphSource, stage: Stage, entry: number): boolean;
  /** The transform that shows ``entry`` with its context: at scale ``k`` (default: the
   * current or the least readable one), the entry at height ``fy`` of the stage. */
  frame(entry: number, stage: Stage, t: ZoomTransform, k?: number, fy?: number): ZoomTransform | null;
  /** Forget what the reader opened (the data was replaced). */
  reset(): void;
}

/** The display node drawing entry ``i``, or -1 (hidden, or no such entry). */
export function nodeOfEntry(disp: Display, i: number): number {
  return i >= 0 && i < disp.nodeOf.length ? disp.nodeOf[i] : -1;
}
