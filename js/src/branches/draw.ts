/** Canvas drawing of the display graph, in screen coordinates, culled to the viewport. */

import { COLORS, KIND_COUNT, KIND_STYLES, Kind, Flag, type Shape } from "../model/constants";
import { fmtDuration } from "../ui/dom";
import type { Display } from "../model/display";
import { lowerBound, type Scene } from "./scene";
import type { Tree } from "../model/tree";

export type { Scene } from "./scene";

export interface Theme {
  bg: string;
  fg: string;
  muted: string;
  edge: string;
  active: string;
  accent: string;
  segFill: string;
  font: string;
}

export interface Transform {
  k: number;
  x: number;
  y: number;
}

export interface Marks {
  selected: number;
  hover: number;
  /** Entry mask of search hits, or null. */
  hits: Uint8Array | null;
  /** Current search hit (entry), -1 if none. */
  currentHit: number;
  /** First lines of entries, drawn beside their nodes when zoomed in (null: none). */
  lines?: Map<number, string> | null;
}

export const SEG_W = 210;
export const SEG_H = 58;

export function shapePath(ctx: CanvasRenderingContext2D, shape: Shape, x: number, y: number, r: number): void {
  switch (shape) {
    case "circle":
      ctx.moveTo(x + r, y);
      ctx.arc(x, y, r, 0, Math.PI * 2);
      break;
    case "dot":
      ctx.moveTo(x + r * 0.75, y);
      ctx.arc(x, y, r * 0.75, 0, Math.PI * 2);
      break;
    case "square":
      ctx.rect(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
      break;
    case "diamond":
      ctx.moveTo(x, y - r * 1.15);
      ctx.lineTo(x + r * 1.15, y);
      ctx.lineTo(x, y + r * 1.15);
      ctx.lineTo(x - r * 1.15, y);
      ctx.closePath();
      break;
    case "hexagon":
      for (let a = 0; a < 6; a++) {
        const ang = (Math.PI / 3) * a;
        const px = x + r * Math.cos(ang);
        const py = y + r * Math.sin(ang);
        if (a === 0) ctx.moveTo(px, py);
        else ctx.lineTo(px, py);
      }
      ctx.closePath();
      break;
    case "triangle":
      ctx.moveTo(x, y - r * 1.1);
      ctx.lineTo(x + r, y + r * 0.75);
      ctx.lineTo(x - r, y + r * 0.75);
      ctx.closePath();
      break;
    case "triangleDown":
      ctx.moveTo(x, y + r * 1.1);
      ctx.lineTo(x + r, y - r * 0.75);
      ctx.lineTo(x - r, y - r * 0.75);
      ctx.closePath();
      break;
    case "tag":
      ctx.moveTo(x - r * 1.2, y);
      ctx.lineTo(x - r * 0.4, y - r * 0.9);
      ctx.lineTo(x + r, y - r * 0.9);
      ctx.lineTo(x + r, y + r * 0.9);
      ctx.lineTo(x - r * 0.4, y + r * 0.9);
      ctx.closePath();
      break;
  }
}

/** Draw one legend icon (also used by the legend's small canvases). */
export function drawIcon(ctx: CanvasRenderingContext2D, kind: number, x: number, y: number, r: number): void {
  const st = KIND_STYLES[kind];
  ctx.beginPath();
  shapePath(ctx, st.shape, x, y, r);
  ctx.fillStyle = st.color;
  ctx.fill();
}

export interface DrawStats {
  nodes: number;
  edges: number;
  ms: number;
  /** Entries in view whose first line is wanted but not known yet. */
  missingLines?: number[];
}

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

/** Text cut to a pixel width with an ellipsis. */
export function fitText(ctx: CanvasRenderingContext2D, text: string, room: number): string {
  if (ctx.measureText(text).width <= room) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? `${text.slice(0, lo)}…` : "";
}

/** Screen radius of a display node. */
export function screenRadius(kind: number, k: number): number {
  return Math.max(KIND_STYLES[kind].r * k, 1.25);
}

export function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  const rr = Math.min(r, w / 2, h / 2);
  ctx.moveTo(x + rr, y);
  ctx.arcTo(x + w, y, x + w, y + h, rr);
  ctx.arcTo(x + w, y + h, x, y + h, rr);
  ctx.arcTo(x, y + h, x, y, rr);
  ctx.arcTo(x, y, x + w, y, rr);
  ctx.closePath();
}

export function truncate(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function fmtCount(n: number): string {
  return n >= 10000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** Parse "#rrggbb" into a little-endian RGBA word for ImageData. */
function rgba(hex: string): number {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  const v = m ? parseInt(m[1], 16) : 0x888888;
  return (0xff << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff);
}

function cssColorToHex(ctx: CanvasRenderingContext2D, color: string): string {
  ctx.fillStyle = "#000000";
  ctx.fillStyle = color;
  const v = ctx.fillStyle;
  return typeof v === "string" && v.startsWith("#") ? v : "#ffffff";
}

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

/** Draw the scene. Returns what was drawn and how long it took. */
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
  const { cols, tree, disp, layout, edges } = scene;
  const texts: DrawnText[] = [];
  const landmarks: number[] = [];
  /** What text must not cover: boxes, then every text drawn outside a box. */
  const occupied: DrawnText[] = [];
  const labelUnder: [number, string][] = [];
  const collides = (r: { x: number; y: number; w: number; h: number }): boolean =>
    occupied.some((o) => r.x < o.x + o.w && o.x < r.x + r.w && r.y < o.y + o.h && o.y < r.y + r.h);
  /** Room to the right of x on a text line before the first box or text on it. */
  const roomRight = (x: number, y0: number, y1: number): number => {
    let room = Infinity;
    for (const o of occupied) {
      if (o.y >= y1 || o.y + o.h <= y0 || o.x + o.w <= x) continue;
      room = Math.min(room, o.x - x);
    }
    return room;
  };
  const { x: lx, y: ly } = layout;
  const k = t.k;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, width, height);
  if (disp.m === 0) return { nodes: 0, edges: 0, ms: performance.now() - t0, texts, landmarks };

  const margin = 40;
  const sx = (d: number): number => lx[d] * k + t.x;
  const sy = (d: number): number => ly[d] * k + t.y;
  const inView = (px: number, py: number): boolean =>
    px > -margin && px < width + margin && py > -margin && py < height + margin;
  // World y range in view (with room for boxes and labels).
  const wy0 = (-margin - 40 - t.y) / k;
  const wy1 = (height + margin + 40 - t.y) / k;
  const wx0 = (-margin - 40 - t.x) / k - SEG_W;
  const wx1 = (width + margin + 40 - t.x) / k + SEG_W;
  const halfDy = (layout.dy / 2) * k;
  /** Screen width of box d: its own, as wide as its neighbours leave room for. */
  const boxW = (d: number): number => Math.max((scene.boxHalf[d] || SEG_W / 2) * 2 * k, 6);
  const segH = Math.max(SEG_H * k, 4);
  const raster = KIND_STYLES[Kind.Compaction].r * k < RASTER_BELOW;

  /** Visit the nodes of a bucket that are in view. */
  const eachInView = (bucket: { nodes: Int32Array; ys: Float32Array }, fn: (d: number, px: number, py: number) => void): void => {
    const a = lowerBound(bucket.ys, wy0);
    const b = lowerBound(bucket.ys, wy1);
    for (let j = a; j < b; j++) {
      const d = bucket.nodes[j];
      const wx = lx[d];
      if (wx < wx0 || wx > wx1) continue;
      fn(d, wx * k + t.x, bucket.ys[j] * k + t.y);
    }
  };

  let nNodes = 0;
  const errNodes: number[] = [];

  // Far away: nodes are a few pixels; write them straight into the image, then draw on top.
  if (raster) {
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
      eachInView(bucket, (d, px, py) => {
        put(px, py, color, size);
        nNodes++;
        if (cols.flags[disp.entry[d]] & Flag.Error) errNodes.push(d);
      });
    }
    const err = rgba(COLORS.error);
    for (const d of errNodes) put(sx(d), sy(d), err, size + Math.max(1, Math.round(dpr)));
    ctx.putImageData(img, 0, 0);
  }

  // Compaction kept spans (translucent bands), along the same elbows as the edges.
  if (scene.compactions.length) {
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.strokeStyle = COLORS.compaction;
    ctx.globalAlpha = raster ? 0.3 : 0.16;
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

  // Edges: merged vertical runs, then elbows; the active path on top, thicker.
  let nEdges = 0;
  const edgePath = (active: number): void => {
    ctx.beginPath();
    const { runX, runY0, runY1, runActive } = edges;
    for (let r = 0; r < runX.length; r++) {
      if (runActive[r] !== active) continue;
      const x = runX[r] * k + t.x;
      if (x < -margin || x > width + margin) continue;
      const y0 = runY0[r] * k + t.y;
      const y1 = runY1[r] * k + t.y;
      if (y1 < -margin || y0 > height + margin) continue;
      if (raster && !active && y1 - y0 < 1.5) continue;
      ctx.moveTo(x, Math.max(y0, -margin));
      ctx.lineTo(x, Math.min(y1, height + margin));
      nEdges++;
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
      nEdges++;
    }
  };
  ctx.lineJoin = "round";
  ctx.lineCap = "butt";
  edgePath(0);
  ctx.strokeStyle = theme.edge;
  ctx.lineWidth = Math.min(Math.max(1.5 * k, 0.75), 2);
  ctx.stroke();
  edgePath(1);
  ctx.strokeStyle = theme.active;
  ctx.lineWidth = Math.min(Math.max(3 * k, 1.5), 3.5);
  ctx.stroke();

  // Search hits: halos under the nodes (over them when far away).
  if (marks.hits) {
    ctx.beginPath();
    const hits = marks.hits;
    const halo = (px: number, py: number, r: number): void => {
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, Math.PI * 2);
    };
    for (let kind = 0; kind < KIND_COUNT; kind++) {
      const bucket = scene.buckets[kind];
      if (!bucket || !bucket.nodes.length) continue;
      const r = screenRadius(kind, k) + (raster ? 2.5 : 5);
      eachInView(bucket, (d, px, py) => {
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
      eachInView(segBucket, (d, px, py) => {
        if (boxHasHit(disp, tree, disp.entry[d], hits, hitNodes)) roundRect(ctx, px - boxW(d) / 2 - 4, py - segH / 2 - 4, boxW(d) + 8, segH + 8, 9);
      });
      ctx.strokeStyle = COLORS.search;
      ctx.lineWidth = 4;
      ctx.stroke();
    }
  }

  // Near enough: nodes as shapes, one path per style.
  if (!raster) {
    for (let kind = 0; kind < KIND_COUNT; kind++) {
      const bucket = scene.buckets[kind];
      if (!bucket || !bucket.nodes.length) continue;
      const st = KIND_STYLES[kind];
      const r = screenRadius(kind, k);
      ctx.beginPath();
      const small = r < RASTER_BELOW;
      eachInView(bucket, (d, px, py) => {
        if (small) ctx.rect(px - r, py - r, 2 * r, 2 * r);
        else shapePath(ctx, st.shape, px, py, r);
        nNodes++;
        if (cols.flags[disp.entry[d]] & Flag.Error) errNodes.push(d);
      });
      ctx.fillStyle = st.color;
      ctx.fill();
    }
    if (errNodes.length) {
      ctx.beginPath();
      for (const d of errNodes) {
        const r = screenRadius(cols.kind[disp.entry[d]], k) + 2.5;
        const px = sx(d);
        const py = sy(d);
        ctx.moveTo(px + r, py);
        ctx.arc(px, py, r, 0, Math.PI * 2);
      }
      ctx.strokeStyle = COLORS.error;
      ctx.lineWidth = 2;
      ctx.stroke();
    }
  }

  // Collapsed segments: boxes that say what the run is: its first prompt, size, time
  // span and tokens, its label, errors and compaction, and a bar of its make-up. Text is
  // set in screen pixels (never under 11 px) and uses the box's whole width; a box is
  // never drawn smaller than its text needs (the view aggregates subtrees instead).
  const segBucket = scene.buckets[KIND_COUNT];
  const wantLines: number[] = [];
  if (segBucket && segBucket.nodes.length) {
    const titlePx = Math.min(Math.max(12 * k, 12), 14);
    const smallPx = titlePx - 1;
    const showText = segH >= BOX_TEXT_FROM_PX;
    eachInView(segBucket, (d, px, py) => {
      const segW = boxW(d);
      if (px < -segW || px > width + segW || py < -segH || py > height + segH) return;
      const i = disp.entry[d];
      const agg = disp.aggregates.get(i);
      const s = agg ? undefined : disp.segments.get(i);
      if (!agg && !s) return;
      nNodes++;
      const x0 = px - segW / 2;
      const y0 = py - segH / 2;
      occupied.push({ d: -1, x: x0, y: y0, w: segW, h: segH });
      if (px >= 0 && px <= width && py >= 0 && py <= height) landmarks.push(d);
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
      if (!showText) return;
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
        texts.push({ d, x: px0, y: y - fontPx / 2 - 1, w, h: fontPx + 2 });
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
      // 1: the first prompt (or what the run is when it has none)
      let head = `${fmtCount(s.size)} entries`;
      if (s.compactions && cols.kind[s.head] === Kind.Compaction) head = marks.lines?.get(s.head) ?? "compaction";
      else if (s.firstUser >= 0) {
        const line = marks.lines?.get(s.firstUser);
        if (line === undefined) wantLines.push(s.firstUser);
        else if (line) head = line;
      }
      if (cols.kind[s.head] === Kind.Compaction && marks.lines && !marks.lines.has(s.head)) wantLines.push(s.head);
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
        if (s.firstLabel >= 0) labelUnder.push([d, `${truncate(cols.labels.get(s.firstLabel) ?? "", 60)}${s.labels > 1 ? ` +${s.labels - 1}` : ""}`]);
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
    });
  }

  // Labels of boxes too short to hold them: a tag centred under the box.
  if (labelUnder.length) {
    ctx.font = `600 11px ${theme.font}`;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    for (const [d, text] of labelUnder) {
      const shown = fitText(ctx, text, boxW(d) - 10);
      if (!shown) continue;
      const w = ctx.measureText(shown).width + 10;
      const x = sx(d) - w / 2;
      const y = sy(d) + segH / 2 + 3;
      if (collides({ x, y, w, h: 16 })) continue;
      ctx.beginPath();
      roundRect(ctx, x, y, w, 16, 4);
      ctx.fillStyle = COLORS.label;
      ctx.fill();
      ctx.fillStyle = "#ffffff";
      ctx.fillText(shown, x + 5, y + 8.5);
      texts.push({ d, x: x + 5, y: y + 1.5, w: w - 10, h: 13 });
      occupied.push({ d, x, y, w, h: 16 });
    }
  }

  const labelEnd = new Map<number, number>();
  // Labels: tags to the right of entries (first label, "+N" for more), fitted to the
  // room before the next box or text; drawn before first lines, which give way to them.
  if (cols.labels.size) {
    const perNode = new Map<number, { text: string; count: number }>();
    for (const [i, text] of cols.labels) {
      const d = disp.nodeOf[i];
      if (d < 0 || disp.isSeg[d] || !inView(sx(d), sy(d))) continue;
      const prev = perNode.get(d);
      if (prev) prev.count++;
      else perNode.set(d, { text, count: 1 });
    }
    ctx.font = `600 11px ${theme.font}`;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    let drawn = 0;
    for (const [d, { text, count }] of perNode) {
      labelEnd.set(d, 0);
      if (drawn > 400) break;
      const px = sx(d) + screenRadius(cols.kind[disp.entry[d]], k) + 10;
      const py = sy(d);
      if (py >= 0 && py <= height) landmarks.push(d);
      const room = Math.min(roomRight(px, py - 8, py + 8) - 6, width - px - 8, 260);
      const label = fitText(ctx, truncate(text, 60) + (count > 1 ? ` +${count - 1}` : ""), room - 10);
      if (!label) continue;
      const w = ctx.measureText(label).width + 10;
      ctx.beginPath();
      roundRect(ctx, px, py - 8, w, 16, 4);
      ctx.fillStyle = COLORS.label;
      ctx.fill();
      ctx.fillStyle = "#ffffff";
      ctx.fillText(label, px + 5, py + 0.5);
      texts.push({ d, x: px + 5, y: py - 7, w: w - 10, h: 14 });
      occupied.push({ d, x: px, y: py - 8, w, h: 16 });
      labelEnd.set(d, w + 6);
      drawn++;
    }
  }

  // Context cuts: a short dashed line across the edge into the first kept entry, with
  // what was cut beside it where there is room.
  if (scene.compactions.length) {
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
      if (!inView(px, py)) continue;
      const w = seg ? boxW(d) / 2 + 4 : Math.max(14 * k, 8);
      ctx.moveTo(px - w, py);
      ctx.lineTo(px + w, py);
      if (!seg) cuts.push([`✂ context cut · ${fmtCount(c.tokensBefore)} tokens before`, px + w + 5, py, d]);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS.compaction;
    for (const [text, x, y, d] of cuts) {
      const shown = fitText(ctx, text, Math.min(roomRight(x, y - 7, y + 7) - 6, width - x - 8));
      if (!shown) continue;
      ctx.fillText(shown, x, y);
      const box = { d, x, y: y - 7, w: ctx.measureText(shown).width, h: 14 };
      texts.push(box);
      occupied.push(box);
    }
  }

  // First lines beside the nodes, in the room before the next node, box or text.
  let missingLines: number[] | undefined;
  if (marks.lines && k >= LINES_FROM_ZOOM) {
    missingLines = [];
    const lines = marks.lines;
    ctx.font = `12px ${theme.font}`;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillStyle = theme.muted;
    for (let kind = 0; kind < KIND_COUNT; kind++) {
      const bucket = scene.buckets[kind];
      if (!bucket || !bucket.nodes.length) continue;
      const r = screenRadius(kind, k);
      eachInView(bucket, (d, px, py) => {
        if (px > width || py < -10 || py > height + 10) return;
        const i = disp.entry[d];
        const text = lines.get(i);
        if (text === undefined) {
          (missingLines as number[]).push(i);
          return;
        }
        if (!text) return;
        const x0 = px + r + 10 + (labelEnd.get(d) ?? 0);
        const room = Math.min(scene.rightGap[d] * k - (x0 - px) - 14, 460, width - x0 - 8, roomRight(x0, py - 7, py + 7) - 8);
        if (room < 36) return;
        const shown = fitText(ctx, text, room);
        if (!shown) return;
        ctx.fillText(shown, x0, py + 0.5);
        const box = { d, x: x0, y: py - 7, w: ctx.measureText(shown).width, h: 14 };
        texts.push(box);
        occupied.push(box);
      });
    }
  }

  // Expand/collapse badges of opened segments (branch view).
  for (const h of disp.expandedHeads) {
    const d = disp.nodeOf[h];
    if (d < 0) continue;
    const px = sx(d) - Math.max(16 * k, 8);
    const py = sy(d);
    if (!inView(px, py)) continue;
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

  // Active leaf, current hit, hover and selection rings.
  const ring = (entryIdx: number, color: string, width: number, extra: number, dash?: number[]): void => {
    if (entryIdx < 0) return;
    const d = disp.nodeOf[entryIdx];
    if (d < 0) return;
    const px = sx(d);
    const py = sy(d);
    if (!inView(px, py)) return;
    ctx.beginPath();
    if (disp.isSeg[d]) roundRect(ctx, px - boxW(d) / 2 - extra, py - segH / 2 - extra, boxW(d) + 2 * extra, segH + 2 * extra, 8);
    else {
      const r = screenRadius(cols.kind[disp.entry[d]], k) + extra;
      ctx.arc(px, py, r, 0, Math.PI * 2);
    }
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    if (dash) ctx.setLineDash(dash);
    ctx.stroke();
    if (dash) ctx.setLineDash([]);
  };
  ring(tree.activeLeaf, theme.active, 2, 4.5, [3, 2]);
  if (marks.currentHit >= 0) ring(marks.currentHit, COLORS.search, 3, 6);
  if (marks.hover >= 0 && marks.hover < disp.m) ring(disp.entry[marks.hover], theme.muted, 2, 3.5);
  if (marks.selected >= 0) {
    ring(marks.selected, theme.accent, 6, 6);
    ring(marks.selected, theme.bg, 1.5, 2.5);
  }
  if (wantLines.length) missingLines = [...(missingLines ?? []), ...wantLines];
  return { nodes: nNodes, edges: nEdges, ms: performance.now() - t0, missingLines, texts, landmarks };
}
