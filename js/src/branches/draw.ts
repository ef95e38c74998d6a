/** The Branches view's drawing: its scene in screen coordinates, culled to the viewport,
 * as a row of named passes over one frame (bands, edges, hits, nodes, boxes, labels,
 * cuts, first lines, badges, rings), each drawn over the ones before. */

import { COLORS, KIND_COUNT, KIND_STYLES, Kind, Flag } from "../model/constants";
import { fmtDuration } from "../ui/dom";
import type { Display } from "../model/display";
import { lowerBound, type Scene } from "./scene";
import type { Tree } from "../model/tree";
import {
  cssColorToHex,
  fitText,
  fmtCount,
  rgba,
  roundRect,
  screenRadius,
  shapePath,
  truncate,
  type DrawStats,
  type Marks,
  type Theme,
  type Transform,
} from "../ui/canvas";

export type { Scene } from "./scene";

export const SEG_W = 210;
export const SEG_H = 58;

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

/** Box height (px) from which a box carries its title and figures. The Branches view
 * never zooms out past the scale that gives it (``BRANCH_MIN_K``). */
export const BOX_TEXT_FROM_PX = 38;
/** The least Branches scale: boxes tall enough for their title and figures. */
export const BRANCH_MIN_K = BOX_TEXT_FROM_PX / SEG_H;

/** Zoom from which first lines are drawn beside the nodes. */
export const LINES_FROM_ZOOM = 0.75;

/** Whether the box headed by entry ``head`` (a run, or a subtree drawn as one box) holds
 * a search hit. */
export function boxHasHit(disp: Display, tree: Tree, head: number, hits: Uint8Array, hitNodes?: Set<number>): boolean {
  const s = disp.segments.get(head);
  if (disp.aggregates.has(head)) {
    const d = disp.nodeOf[head];
    if (hitNodes) return hitNodes.has(d);
    for (let i = 0; i < hits.length; i++) if (hits[i] && disp.nodeOf[i] === d) return true;
    return false;
  }
  if (!s) return false;
  for (let v = s.tail, steps = 0; steps < s.size && v >= 0; v = tree.parent[v], steps++) if (hits[v]) return true;
  return false;
}

/** Below this many screen pixels of radius, nodes are written straight into pixels. */
const RASTER_BELOW = 2.2;

type Bucket = { nodes: Int32Array; ys: Float32Array };
type Box = { x: number; y: number; w: number; h: number };

/** One drawing of the scene: the view's geometry, and what the passes hand on to the ones
 * after them (counts, the texts drawn, the room text already takes). */
interface Frame {
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

function newFrame(
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

/** Whether a box would cover a box or a text already drawn outside boxes. */
function collides(f: Frame, r: Box): boolean {
  return f.occupied.some((o) => r.x < o.x + o.w && o.x < r.x + r.w && r.y < o.y + o.h && o.y < r.y + r.h);
}

/** Room to the right of x on a text line before the first box or text on it. */
function roomRight(f: Frame, x: number, y0: number, y1: number): number {
  let room = Infinity;
  for (const o of f.occupied) {
    if (o.y >= y1 || o.y + o.h <= y0 || o.x + o.w <= x) continue;
    room = Math.min(room, o.x - x);
  }
  return room;
}

/** Far away: nodes are a few pixels; write them straight into the image, then draw on top. */
function drawRasterNodes(f: Frame): void {
  const { ctx, scene, width, height, dpr, theme } = f;
  const { cols, disp } = scene;
  const W = Math.max(1, Math.round(width * dpr));
  const H = Math.max(1, Math.round(height * dpr));
  const img = ctx.createImageData(W, H);
  const px32 = new Uint32Array(img.data.buffer);
  px32.fill(rgba(cssColorToHex(ctx, theme.bg)));
  const size = Math.max(1, Math.round(2 * dpr));
  const put = (px: number, py: number, color: number, sz: number): void => {
    const cx = Math.round(px * dpr - sz / 2);
    const cy = Math.round(py * dpr - sz / 2);
    for (let yy = Math.max(0, cy); yy < Math.min(H, cy + sz); yy++) {
      const row = yy * W;
      for (let xx = Math.max(0, cx); xx < Math.min(W, cx + sz); xx++) px32[row + xx] = color;
    }
  };
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const color = rgba(KIND_STYLES[kind].color);
    f.eachInView(bucket, (d, px, py) => {
      put(px, py, color, size);
      f.nodes++;
      if (cols.flags[disp.entry[d]] & Flag.Error) f.errNodes.push(d);
    });
  }
  const err = rgba(COLORS.error);
  for (const d of f.errNodes) put(f.sx(d), f.sy(d), err, size + Math.max(1, Math.round(dpr)));
  ctx.putImageData(img, 0, 0);
}

/** Compaction kept spans (translucent bands), along the same elbows as the edges. */
function drawCompactionBands(f: Frame): void {
  const { ctx, scene, k, height, margin, halfDy, sx, sy } = f;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.strokeStyle = COLORS.compaction;
  ctx.globalAlpha = f.raster ? 0.3 : 0.16;
  ctx.lineWidth = Math.max(16 * k, 5);
  ctx.beginPath();
  for (const c of scene.compactions) {
    for (let j = 1; j < c.span.length; j++) {
      const a = c.span[j - 1];
      const b = c.span[j];
      const x1 = sx(b);
      const y1 = sy(b);
      const x2 = sx(a);
      const y2 = sy(a);
      if (Math.max(y1, y2) < -margin || Math.min(y1, y2) > height + margin) continue;
      ctx.moveTo(x2, y2);
      if (x1 !== x2) {
        const ym = y2 - Math.min(halfDy, (y2 - y1) / 2);
        ctx.lineTo(x2, ym);
        ctx.lineTo(x1, ym);
      }
      ctx.lineTo(x1, y1);
    }
    if (c.span.length === 1) {
      const d = c.span[0];
      ctx.moveTo(sx(d), sy(d));
      ctx.lineTo(sx(d), sy(d) + 0.01);
    }
  }
  ctx.stroke();
  ctx.globalAlpha = 1;
}

/** The path of the edges off (0) or on (1) the active path: merged vertical runs, then
 * elbows. */
function edgePath(f: Frame, active: number): void {
  const { ctx, t, k, width, height, margin, halfDy, sx, sy } = f;
  const { edges } = f.scene;
  ctx.beginPath();
  const { runX, runY0, runY1, runActive } = edges;
  for (let r = 0; r < runX.length; r++) {
    if (runActive[r] !== active) continue;
    const x = runX[r] * k + t.x;
    if (x < -margin || x > width + margin) continue;
    const y0 = runY0[r] * k + t.y;
    const y1 = runY1[r] * k + t.y;
    if (y1 < -margin || y0 > height + margin) continue;
    if (f.raster && !active && y1 - y0 < 1.5) continue;
    ctx.moveTo(x, Math.max(y0, -margin));
    ctx.lineTo(x, Math.min(y1, height + margin));
    f.edges++;
  }
  const { elbowParent, elbowChild, elbowActive } = edges;
  for (let j = 0; j < elbowParent.length; j++) {
    if (elbowActive[j] !== active) continue;
    const p = elbowParent[j];
    const d = elbowChild[j];
    const x1 = sx(p);
    const y1 = sy(p);
    const x2 = sx(d);
    const y2 = sy(d);
    if (Math.max(x1, x2) < -margin || Math.min(x1, x2) > width + margin) continue;
    if (y2 < -margin || y1 > height + margin) continue;
    const ym = y2 - Math.min(halfDy, (y2 - y1) / 2);
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1, ym);
    ctx.lineTo(x2, ym);
    ctx.lineTo(x2, y2);
    f.edges++;
  }
}

/** Edges: the active path on top, thicker. */
function drawEdges(f: Frame): void {
  const { ctx, k, theme } = f;
  ctx.lineJoin = "round";
  ctx.lineCap = "butt";
  edgePath(f, 0);
  ctx.strokeStyle = theme.edge;
  ctx.lineWidth = Math.min(Math.max(1.5 * k, 0.75), 2);
  ctx.stroke();
  edgePath(f, 1);
  ctx.strokeStyle = theme.active;
  ctx.lineWidth = Math.min(Math.max(3 * k, 1.5), 3.5);
  ctx.stroke();
}

/** Search hits: halos under the nodes (over them when far away), and an outline around
 * each box that holds a hit. */
function drawHitHalos(f: Frame, hits: Uint8Array): void {
  const { ctx, scene, k, raster, segH, boxW } = f;
  const { disp, tree } = scene;
  ctx.beginPath();
  const halo = (px: number, py: number, r: number): void => {
    ctx.moveTo(px + r, py);
    ctx.arc(px, py, r, 0, Math.PI * 2);
  };
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const r = screenRadius(kind, k) + (raster ? 2.5 : 5);
    f.eachInView(bucket, (d, px, py) => {
      if (hits[disp.entry[d]]) halo(px, py, r);
    });
  }
  ctx.fillStyle = COLORS.search;
  ctx.globalAlpha = raster ? 0.8 : 0.55;
  ctx.fill();
  ctx.globalAlpha = 1;
  // A box that holds a hit gets an outline of its own shape: a disc as wide as the
  // box covered its neighbours.
  const segBucket = scene.buckets[KIND_COUNT];
  if (segBucket && segBucket.nodes.length) {
    ctx.beginPath();
    let hitNodes: Set<number> | undefined;
    if (disp.aggregates.size) {
      hitNodes = new Set<number>();
      for (let i = 0; i < hits.length; i++) if (hits[i]) hitNodes.add(disp.nodeOf[i]);
    }
    f.eachInView(segBucket, (d, px, py) => {
      if (boxHasHit(disp, tree, disp.entry[d], hits, hitNodes)) roundRect(ctx, px - boxW(d) / 2 - 4, py - segH / 2 - 4, boxW(d) + 8, segH + 8, 9);
    });
    ctx.strokeStyle = COLORS.search;
    ctx.lineWidth = 4;
    ctx.stroke();
  }
}

/** Near enough: nodes as shapes, one path per style, then a ring around each error. */
function drawNodeShapes(f: Frame): void {
  const { ctx, scene, k } = f;
  const { cols, disp } = scene;
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const st = KIND_STYLES[kind];
    const r = screenRadius(kind, k);
    ctx.beginPath();
    const small = r < RASTER_BELOW;
    f.eachInView(bucket, (d, px, py) => {
      if (small) ctx.rect(px - r, py - r, 2 * r, 2 * r);
      else shapePath(ctx, st.shape, px, py, r);
      f.nodes++;
      if (cols.flags[disp.entry[d]] & Flag.Error) f.errNodes.push(d);
    });
    ctx.fillStyle = st.color;
    ctx.fill();
  }
  if (f.errNodes.length) {
    ctx.beginPath();
    for (const d of f.errNodes) {
      const r = screenRadius(cols.kind[disp.entry[d]], k) + 2.5;
      const px = f.sx(d);
      const py = f.sy(d);
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, Math.PI * 2);
    }
    ctx.strokeStyle = COLORS.error;
    ctx.lineWidth = 2;
    ctx.stroke();
  }
}

/** Collapsed segments: boxes that say what the run is: its first prompt, size, time
 * span and tokens, its label, errors and compaction, and a bar of its make-up. Text is
 * set in screen pixels (never under 11 px) and uses the box's whole width; a box is
 * never drawn smaller than its text needs (the view aggregates subtrees instead). */
function drawBoxes(f: Frame): void {
  const segBucket = f.scene.buckets[KIND_COUNT];
  if (!segBucket || !segBucket.nodes.length) return;
  f.eachInView(segBucket, (d, px, py) => drawBox(f, d, px, py));
}

/** One box at (px, py): its outline (a stack for a subtree), make-up bar and text. */
function drawBox(f: Frame, d: number, px: number, py: number): void {
  const { ctx, k, width, height, segH, theme } = f;
  const { disp } = f.scene;
  const segW = f.boxW(d);
  if (px < -segW || px > width + segW || py < -segH || py > height + segH) return;
  const i = disp.entry[d];
  const agg = disp.aggregates.get(i);
  const s = agg ? undefined : disp.segments.get(i);
  if (!agg && !s) return;
  f.nodes++;
  const x0 = px - segW / 2;
  const y0 = py - segH / 2;
  f.occupied.push({ d: -1, x: x0, y: y0, w: segW, h: segH });
  if (px >= 0 && px <= width && py >= 0 && py <= height) f.landmarks.push(d);
  if (agg) {
    // A stack of boxes: two outlines peek out behind the front one.
    for (const off of [6, 3]) {
      ctx.beginPath();
      roundRect(ctx, x0 + off, y0 - off, segW, segH, Math.min(7 * k, segH / 2));
      ctx.fillStyle = theme.segFill;
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = theme.edge;
      ctx.stroke();
    }
  }
  ctx.beginPath();
  roundRect(ctx, x0, y0, segW, segH, Math.min(7 * k, segH / 2));
  ctx.fillStyle = theme.segFill;
  ctx.fill();
  const active = s ? s.onActive : false;
  ctx.lineWidth = active ? 2.5 : 1.25;
  ctx.strokeStyle = active ? theme.active : theme.edge;
  if (agg) ctx.setLineDash([5, 3]);
  ctx.stroke();
  ctx.setLineDash([]);
  const pad = Math.max(Math.min(8 * k, 10), 6);
  const bx0 = x0 + pad;
  const room = segW - 2 * pad;
  const barH = Math.max(3 * k, 2);
  const barY = y0 + segH - barH - Math.max(4 * k, 3);
  if (s) {
    const parts: [number, string][] = [
      [s.users, KIND_STYLES[Kind.User].color],
      [s.assistants, KIND_STYLES[Kind.Assistant].color],
      [s.tools, KIND_STYLES[Kind.ToolResult].color],
      [s.others, KIND_STYLES[Kind.Other].color],
    ];
    let bx = bx0;
    for (const [count, color] of parts) {
      if (!count) continue;
      const w = (room * count) / s.size;
      ctx.fillStyle = color;
      ctx.fillRect(bx, barY, w, barH);
      bx += w;
    }
  }
  if (segH < BOX_TEXT_FROM_PX) return;
  const titlePx = Math.min(Math.max(12 * k, 12), 14);
  const smallPx = titlePx - 1;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const yTitle = y0 + Math.max(10.5, 13 * k);
  const yFig = yTitle + Math.max(13.5, 15 * k);
  const yMarks = yFig + Math.max(13, 14 * k);
  const put = (text: string, y: number, px0: number, roomPx: number, fontPx: number): number => {
    const shown = fitText(ctx, text, roomPx);
    if (!shown) return 0;
    ctx.fillText(shown, px0, y);
    const w = ctx.measureText(shown).width;
    f.texts.push({ d, x: px0, y: y - fontPx / 2 - 1, w, h: fontPx + 2 });
    return w;
  };
  if (agg) {
    ctx.font = `600 ${titlePx}px ${theme.font}`;
    ctx.fillStyle = theme.fg;
    put(`▸ ${fmtCount(agg.branches)} branches`, yTitle, bx0, room, titlePx);
    ctx.font = `${smallPx}px ${theme.font}`;
    ctx.fillStyle = theme.muted;
    put(`${fmtCount(agg.entries)} entries · ${fmtCount(agg.tokens)} tokens`, yFig, bx0, room, smallPx);
    return;
  }
  if (!s) return;
  const { cols } = f.scene;
  const lines = f.marks.lines;
  // 1: the first prompt (or what the run is when it has none)
  let head = `${fmtCount(s.size)} entries`;
  if (s.compactions && cols.kind[s.head] === Kind.Compaction) head = lines?.get(s.head) ?? "compaction";
  else if (s.firstUser >= 0) {
    const line = lines?.get(s.firstUser);
    if (line === undefined) f.wantLines.push(s.firstUser);
    else if (line) head = line;
  }
  if (cols.kind[s.head] === Kind.Compaction && lines && !lines.has(s.head)) f.wantLines.push(s.head);
  ctx.font = `600 ${titlePx}px ${theme.font}`;
  ctx.fillStyle = theme.fg;
  put(head, yTitle, bx0, room, titlePx);
  // 2: size, time span, tokens
  ctx.font = `${smallPx}px ${theme.font}`;
  ctx.fillStyle = theme.muted;
  const span = s.t1 > s.t0 ? ` · ${fmtDuration(s.t1 - s.t0)}` : "";
  put(`${fmtCount(s.size)} entries${span} · ${fmtCount(s.tokens)} tokens`, yFig, bx0, room, smallPx);
  // 3: marks: label, errors, compactions; in the box when it is tall enough, else
  // the label as a tag under the box (in the gap before the next level).
  const inside = yMarks + smallPx / 2 <= barY;
  ctx.font = `600 ${smallPx}px ${theme.font}`;
  if (!inside) {
    if (s.firstLabel >= 0) f.labelUnder.push([d, `${truncate(cols.labels.get(s.firstLabel) ?? "", 60)}${s.labels > 1 ? ` +${s.labels - 1}` : ""}`]);
    return;
  }
  let mx = bx0;
  const mark = (text: string, color: string): void => {
    ctx.fillStyle = color;
    const w = put(text, yMarks, mx, bx0 + room - mx, smallPx);
    if (w) mx += w + 8;
  };
  if (s.firstLabel >= 0) {
    const r = smallPx * 0.35;
    ctx.beginPath();
    shapePath(ctx, "tag", mx + r * 1.2, yMarks, r);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    mx += r * 3;
    mark(`${truncate(cols.labels.get(s.firstLabel) ?? "", 60)}${s.labels > 1 ? ` +${s.labels - 1}` : ""}`, COLORS.label);
  }
  if (s.errors) mark(`✗ ${s.errors} error${s.errors > 1 ? "s" : ""}`, COLORS.error);
  const more = s.compactions - (cols.kind[s.head] === Kind.Compaction ? 1 : 0);
  if (more > 0) mark(`✂ ${more} more compaction${more > 1 ? "s" : ""}`, COLORS.compaction);
}

/** Labels of boxes too short to hold them: a tag centred under the box. */
function drawLabelsUnderBoxes(f: Frame): void {
  const { ctx, theme, segH } = f;
  ctx.font = `600 11px ${theme.font}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (const [d, text] of f.labelUnder) {
    const shown = fitText(ctx, text, f.boxW(d) - 10);
    if (!shown) continue;
    const w = ctx.measureText(shown).width + 10;
    const x = f.sx(d) - w / 2;
    const y = f.sy(d) + segH / 2 + 3;
    if (collides(f, { x, y, w, h: 16 })) continue;
    ctx.beginPath();
    roundRect(ctx, x, y, w, 16, 4);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    ctx.fillStyle = "#ffffff";
    ctx.fillText(shown, x + 5, y + 8.5);
    f.texts.push({ d, x: x + 5, y: y + 1.5, w: w - 10, h: 13 });
    f.occupied.push({ d, x, y, w, h: 16 });
  }
}

/** Labels: tags to the right of entries (first label, "+N" for more), fitted to the
 * room before the next box or text; drawn before first lines, which give way to them. */
function drawEntryLabels(f: Frame): void {
  const { ctx, scene, k, width, height, theme, sx, sy } = f;
  const { cols, disp } = scene;
  const perNode = new Map<number, { text: string; count: number }>();
  for (const [i, text] of cols.labels) {
    const d = disp.nodeOf[i];
    if (d < 0 || disp.isSeg[d] || !f.inView(sx(d), sy(d))) continue;
    const prev = perNode.get(d);
    if (prev) prev.count++;
    else perNode.set(d, { text, count: 1 });
  }
  ctx.font = `600 11px ${theme.font}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  let drawn = 0;
  for (const [d, { text, count }] of perNode) {
    f.labelEnd.set(d, 0);
    if (drawn > 400) break;
    const px = sx(d) + screenRadius(cols.kind[disp.entry[d]], k) + 10;
    const py = sy(d);
    if (py >= 0 && py <= height) f.landmarks.push(d);
    const room = Math.min(roomRight(f, px, py - 8, py + 8) - 6, width - px - 8, 260);
    const label = fitText(ctx, truncate(text, 60) + (count > 1 ? ` +${count - 1}` : ""), room - 10);
    if (!label) continue;
    const w = ctx.measureText(label).width + 10;
    ctx.beginPath();
    roundRect(ctx, px, py - 8, w, 16, 4);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    ctx.fillStyle = "#ffffff";
    ctx.fillText(label, px + 5, py + 0.5);
    f.texts.push({ d, x: px + 5, y: py - 7, w: w - 10, h: 14 });
    f.occupied.push({ d, x: px, y: py - 8, w, h: 16 });
    f.labelEnd.set(d, w + 6);
    drawn++;
  }
}

/** Context cuts: a short dashed line across the edge into the first kept entry, with
 * what was cut beside it where there is room. */
function drawContextCuts(f: Frame): void {
  const { ctx, scene, k, width, theme, segH, halfDy, sx, sy } = f;
  const { disp } = scene;
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = COLORS.compaction;
  ctx.lineWidth = 2;
  ctx.font = `600 11px ${theme.font}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.beginPath();
  const cuts: [string, number, number, number][] = [];
  for (const c of scene.compactions) {
    const d = c.cutAt;
    const seg = disp.isSeg[d] === 1;
    const px = sx(d);
    const py = sy(d) - (seg ? segH / 2 + Math.min(halfDy - segH / 2, 8 * k) : Math.min(halfDy, 12 * k + 4));
    if (!f.inView(px, py)) continue;
    const w = seg ? f.boxW(d) / 2 + 4 : Math.max(14 * k, 8);
    ctx.moveTo(px - w, py);
    ctx.lineTo(px + w, py);
    if (!seg) cuts.push([`✂ context cut · ${fmtCount(c.tokensBefore)} tokens before`, px + w + 5, py, d]);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = COLORS.compaction;
  for (const [text, x, y, d] of cuts) {
    const shown = fitText(ctx, text, Math.min(roomRight(f, x, y - 7, y + 7) - 6, width - x - 8));
    if (!shown) continue;
    ctx.fillText(shown, x, y);
    const box = { d, x, y: y - 7, w: ctx.measureText(shown).width, h: 14 };
    f.texts.push(box);
    f.occupied.push(box);
  }
}

/** First lines beside the nodes, in the room before the next node, box or text. Returns
 * the entries in view whose line is not known yet. */
function drawFirstLines(f: Frame, lines: Map<number, string>): number[] {
  const { ctx, scene, k, width, height, theme } = f;
  const { disp } = scene;
  const missingLines: number[] = [];
  ctx.font = `12px ${theme.font}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillStyle = theme.muted;
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const r = screenRadius(kind, k);
    f.eachInView(bucket, (d, px, py) => {
      if (px > width || py < -10 || py > height + 10) return;
      const i = disp.entry[d];
      const text = lines.get(i);
      if (text === undefined) {
        missingLines.push(i);
        return;
      }
      if (!text) return;
      const x0 = px + r + 10 + (f.labelEnd.get(d) ?? 0);
      const room = Math.min(scene.rightGap[d] * k - (x0 - px) - 14, 460, width - x0 - 8, roomRight(f, x0, py - 7, py + 7) - 8);
      if (room < 36) return;
      const shown = fitText(ctx, text, room);
      if (!shown) return;
      ctx.fillText(shown, x0, py + 0.5);
      const box = { d, x: x0, y: py - 7, w: ctx.measureText(shown).width, h: 14 };
      f.texts.push(box);
      f.occupied.push(box);
    });
  }
  return missingLines;
}

/** Expand/collapse badges of opened segments (branch view). */
function drawCollapseBadges(f: Frame): void {
  const { ctx, scene, k, theme } = f;
  const { disp } = scene;
  for (const h of disp.expandedHeads) {
    const d = disp.nodeOf[h];
    if (d < 0) continue;
    const px = f.sx(d) - Math.max(16 * k, 8);
    const py = f.sy(d);
    if (!f.inView(px, py)) continue;
    const r = Math.max(6 * k, 4);
    ctx.beginPath();
    ctx.arc(px, py, r, 0, Math.PI * 2);
    ctx.fillStyle = theme.segFill;
    ctx.fill();
    ctx.strokeStyle = theme.muted;
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(px - r * 0.5, py);
    ctx.lineTo(px + r * 0.5, py);
    ctx.stroke();
  }
}

/** A ring around an entry's node or box (nothing when it is not drawn or out of view). */
function ring(f: Frame, entryIdx: number, color: string, width: number, extra: number, dash?: number[]): void {
  const { ctx, scene, k, segH } = f;
  const { cols, disp } = scene;
  if (entryIdx < 0) return;
  const d = disp.nodeOf[entryIdx];
  if (d < 0) return;
  const px = f.sx(d);
  const py = f.sy(d);
  if (!f.inView(px, py)) return;
  ctx.beginPath();
  if (disp.isSeg[d]) roundRect(ctx, px - f.boxW(d) / 2 - extra, py - segH / 2 - extra, f.boxW(d) + 2 * extra, segH + 2 * extra, 8);
  else {
    const r = screenRadius(cols.kind[disp.entry[d]], k) + extra;
    ctx.arc(px, py, r, 0, Math.PI * 2);
  }
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  if (dash) ctx.setLineDash(dash);
  ctx.stroke();
  if (dash) ctx.setLineDash([]);
}

/** Active leaf, current hit, hover and selection rings, over everything else. */
function drawRings(f: Frame): void {
  const { theme, marks } = f;
  const { tree, disp } = f.scene;
  ring(f, tree.activeLeaf, theme.active, 2, 4.5, [3, 2]);
  if (marks.currentHit >= 0) ring(f, marks.currentHit, COLORS.search, 3, 6);
  if (marks.hover >= 0 && marks.hover < disp.m) ring(f, disp.entry[marks.hover], theme.muted, 2, 3.5);
  if (marks.selected >= 0) {
    ring(f, marks.selected, theme.accent, 6, 6);
    ring(f, marks.selected, theme.bg, 1.5, 2.5);
  }
}

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
