/** Canvas helpers both graph views draw with: themes and marks, node shapes, fitted text,
 * rounded boxes, pixel colours. Kept apart from any one view so the Tree view's drawing
 * does not depend on the Branches view's. */

import { KIND_STYLES, type Shape } from "../model/constants";

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
export function rgba(hex: string): number {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  const v = m ? parseInt(m[1], 16) : 0x888888;
  return (0xff << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff);
}

/** A CSS colour as "#rrggbb", resolved by the context (white when it cannot say). */
export function cssColorToHex(ctx: CanvasRenderingContext2D, color: string): string {
  ctx.fillStyle = "#000000";
  ctx.fillStyle = color;
  const v = ctx.fillStyle;
  return typeof v === "string" && v.startsWith("#") ? v : "#ffffff";
}
