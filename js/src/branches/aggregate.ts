/**
 * Level of detail for the Branches view: what the view draws as one box at a given stage
 * size and scale. The whole session fits the stage at the opening scale (``FIT_K``, where
 * every box carries its title and figures); zooming in by a step of ``LEVEL_STEP`` gives
 * the picture that much more room in each direction, so boxes open as soon as their parts
 * have room. Pure: grid units, no DOM.
 */

import type { Columns } from "../model/data";
import { buildDisplay, childColumns, type Display } from "../model/display";
import type { Visible } from "../model/filter";
import type { Tree } from "../model/tree";
import { baseFacts, boxesOf, coarsen, type Base, type Grid, type Room } from "./coarsen";
import { SPACING } from "./layout";

/** Box size in world units (a box is drawn this big at scale 1). */
export const SEG_W = 210;
export const SEG_H = 68;
/** Box height (px) from which a box carries its title and figures. */
export const BOX_TEXT_FROM_PX = 38;
/** The least scale at which boxes carry their text. */
export const READABLE_K = BOX_TEXT_FROM_PX / SEG_H;
/** The scale the picture is made to fit at: boxes hold their title and figures with
 * room to spare. */
export const FIT_K = 0.75;
/** Zooming in by this factor gives the picture one level more room. */
export const LEVEL_STEP = 1.25;
/** Screen pixels kept free around the picture at Fit. */
export const FIT_PAD = 16;
/** Screen room kept under the picture at Fit for the label tags under boxes. */
export const TAG_ROOM = 20;
/** The widest a box is drawn: it widens into the room beside it up to this half width. */
export const BOX_HALF_MAX = 210;

/** Half the width a plain node (an entry, not a box) takes beside its centre. */
export const NODE_HALF = 14;
/** Screen pixels a plain node's cell takes to its right: what it shows is a dot and a
 * line of about 40 characters (a longer one takes a second line where the row has the
 * height, whole in the hover).
 * Sized by what it shows, not by the longest line a node may carry, so that roots of one
 * entry each stand in a cell of their own, several to a row, rather than folding into
 * boxes of roots. */
export const LINE_PX = 260;

export const GRID: Grid = {
  dx: SPACING.branches.dx,
  dy: SPACING.branches.dy,
  boxHalf: BOX_HALF_MAX,
  boxH: SEG_H,
  nodeHalf: NODE_HALF,
  lineW: LINE_PX / FIT_K,
};

/** World room of a ``width`` x ``height`` stage at level ``level`` (0: Fit). */
export function roomAt(width: number, height: number, level: number): Room {
  const k = FIT_K / LEVEL_STEP ** level;
  return { width: Math.max(width - 2 * FIT_PAD, 50) / k, height: Math.max(height - 2 * FIT_PAD - TAG_ROOM, 50) / k };
}

/** The level for scale ``k`` when Fit showed the picture at ``fitK`` (0 at Fit or below). */
export function levelAt(k: number, fitK: number): number {
  if (!(k > fitK) || !(fitK > 0)) return 0;
  return Math.min(24, Math.floor(Math.log(k / fitK) / Math.log(LEVEL_STEP) + 1e-9));
}

/** The Branches display for a room: the display with every run as one node, coarsened
 * until it fits. ``base`` may be passed back in (from the result) to skip rebuilding it. */
export function levelDisplay(
  cols: Columns,
  tree: Tree,
  vis: Visible,
  expanded: ReadonlySet<number>,
  room: Room,
  opened: ReadonlySet<number>,
  base?: Base,
): { disp: Display; base: Base } {
  const b = base ?? baseFacts(buildDisplay(cols, tree, vis, "branches", expanded), cols, tree);
  const found = boxesOf(b, coarsen(b, room, GRID, opened));
  return { disp: found ? coarseDisplay(b, found.boxOf, found.first, found.plan.info) : b.disp, base: b };
}

/** The display of ``b`` with the boxes of ``boxOf`` (box per display node, -1: none;
 * ``first``: each box's first node) each drawn as one node. The same display as
 * ``buildDisplay`` with the boxes' plan, made from ``b``'s display rather than from every
 * entry again: its runs and their figures are shared, only the nodes are new. */
export function coarseDisplay(b: Base, boxOf: Int32Array, first: number[], info: Display["aggregates"]): Display {
  const base = b.disp;
  const nodeMap = new Int32Array(base.m);
  const entry: number[] = [];
  const isSeg: number[] = [];
  const dparentArr: number[] = [];
  // Base nodes are numbered parents first, and a box's first node comes before the rest
  // of it: every node's parent and box already has its new node.
  for (let d = 0; d < base.m; d++) {
    const g = boxOf[d];
    if (g >= 0 && first[g] !== d) {
      nodeMap[d] = nodeMap[first[g]];
      continue;
    }
    nodeMap[d] = entry.length;
    entry.push(base.entry[d]);
    isSeg.push(g >= 0 ? 1 : base.isSeg[d]);
    const p = base.dparent[d];
    dparentArr.push(p >= 0 ? nodeMap[p] : -1);
  }
  const m = entry.length;
  const { childStart, childList, roots } = childColumns(dparentArr);
  const nodeOf = new Int32Array(base.nodeOf.length);
  for (let i = 0; i < nodeOf.length; i++) {
    const d = base.nodeOf[i];
    nodeOf[i] = d >= 0 ? nodeMap[d] : -1;
  }
  return {
    m,
    entry: Int32Array.from(entry),
    isSeg: Uint8Array.from(isSeg),
    dparent: Int32Array.from(dparentArr),
    childStart,
    childList,
    roots,
    nodeOf,
    segOf: base.segOf,
    segments: base.segments,
    expandedHeads: base.expandedHeads.filter((h) => base.nodeOf[h] >= 0 && boxOf[base.nodeOf[h]] < 0),
    folds: base.folds,
    aggregates: info,
  };
}
