/**
 * The overview strip of the tree view: the whole session top to bottom in a narrow column
 * at the stage's right edge, drawn from the Fit level of detail (every row of it), so it
 * shows the session's shape: the lanes with the active path thick, where branches leave
 * it, compactions, errors and search hits as ticks, and the part on screen as a box.
 * Click or drag in it to go there. The shape is drawn once per scene into an offscreen
 * canvas, so a frame only copies it.
 */

import { COLORS, Flag, Kind } from "../model/constants";
import type { Theme } from "../ui/canvas";
import { el } from "../ui/dom";
import { Rank, eachSpanIn, type LaneScene } from "./lanescene";

export const MINIMAP_W = 24;
/** Pixels between lanes in the strip. */
const LANE_PX = 5;

/** Which rows hold a search hit (a folded row holds its entries' hits). */
function hitRows(s: LaneScene, hits: Uint8Array | null): Uint8Array {
  const out = new Uint8Array(s.disp.m);
  if (!hits) return out;
  for (let i = 0; i < hits.length && i < s.disp.nodeOf.length; i++) {
    const d = hits[i] ? s.disp.nodeOf[i] : -1;
    if (d >= 0) out[s.layout.row[d]] = 1;
  }
  return out;
}

/** Where each row's tick goes, and its colour (pure: tested without a canvas). A folded
 * row is marked by what it holds (an error, a compaction). */
export function minimapTicks(s: LaneScene, hits: Uint8Array | null, height: number): { y: number; color: string }[] {
  const m = s.disp.m;
  const out: { y: number; color: string }[] = [];
  if (!m || height <= 0) return out;
  const hit = hitRows(s, hits);
  const lastY = new Map<string, number>();
  for (let r = 0; r < m; r++) {
    const d = s.layout.byRow[r];
    const i = s.disp.entry[d];
    const fold = s.disp.isSeg[d] ? s.disp.folds.get(i) : undefined;
    let color = "";
    if (hit[r]) color = COLORS.search;
    else if (fold ? fold.errors > 0 : s.cols.flags[i] & Flag.Error) color = COLORS.error;
    else if (fold ? fold.compactions > 0 : s.cols.kind[i] === Kind.Compaction) color = COLORS.compaction;
    else if (s.cols.problemAt.has(i)) color = COLORS.problem;
    else if (s.rank[r] === Rank.BranchStart) color = "#7a8699";
    else continue;
    const y = Math.floor(((r + 0.5) / m) * height);
    if (lastY.get(color) === y) continue; // one tick per pixel row and colour
    lastY.set(color, y);
    out.push({ y, color });
  }
  return out;
}

/** The lanes of the strip: each lane's lines (from row fraction y0 to y1, on the active
 * path or not) and the branch-offs (from the parent's lane to the child's, at the child's
 * row). Fractions of the strip's height; lanes as indices. */
export function minimapShape(s: LaneScene): {
  lines: { lane: number; y0: number; y1: number; active: boolean }[];
  offs: { from: number; to: number; y: number; active: boolean }[];
} {
  const m = s.disp.m;
  const lines: { lane: number; y0: number; y1: number; active: boolean }[] = [];
  const offs: { from: number; to: number; y: number; active: boolean }[] = [];
  if (!m) return { lines, offs };
  const f = (r: number): number => (r + 0.5) / m;
  eachSpanIn(s, 0, m - 1, (lane, a, b, act) => lines.push({ lane, y0: f(a), y1: f(b), active: act === 1 }));
  const { lane, byRow } = s.layout;
  for (let r = 0; r < m; r++) {
    const d = byRow[r];
    const p = s.disp.dparent[d];
    if (p < 0 || lane[p] === lane[d]) continue;
    const active = s.tree.onActive[s.disp.entry[d]] === 1;
    offs.push({ from: lane[p], to: lane[d], y: f(r), active });
  }
  return { lines, offs };
}

export class Minimap {
  readonly el: HTMLCanvasElement;
  private cache: HTMLCanvasElement | null = null;
  private cacheKey: unknown[] = [];
  private dragging = false;

  /** ``jump(f)``: show the row at fraction ``f`` (0 top, 1 bottom) of the session. */
  constructor(private jump: (f: number) => void) {
    this.el = el("canvas", "pnb-minimap pnb-hidden");
    this.el.title = "Overview: click or drag to go there";
    const at = (ev: PointerEvent): void => {
      const r = this.el.getBoundingClientRect();
      this.jump(Math.min(Math.max((ev.clientY - r.top) / Math.max(r.height, 1), 0), 1));
    };
    this.el.addEventListener("pointerdown", (ev) => {
      this.dragging = true;
      this.el.setPointerCapture?.(ev.pointerId);
      at(ev);
      ev.stopPropagation();
    });
    this.el.addEventListener("pointermove", (ev) => {
      if (this.dragging) at(ev);
    });
    this.el.addEventListener("pointerup", () => {
      this.dragging = false;
    });
  }

  hide(): void {
    this.el.classList.add("pnb-hidden");
  }

  /** Draw the strip: ``view0..view1`` are the fractions of the rows on screen. */
  draw(s: LaneScene, hits: Uint8Array | null, height: number, dpr: number, view0: number, view1: number, theme: Theme): void {
    const { bg, fg } = theme;
    this.el.classList.remove("pnb-hidden");
    const W = Math.round(MINIMAP_W * dpr);
    const H = Math.round(height * dpr);
    if (this.el.width !== W || this.el.height !== H) {
      this.el.width = W;
      this.el.height = H;
      this.el.style.height = `${height}px`;
    }
    const key = [s, hits, H, bg, theme.active];
    if (!this.cache || key.some((k, j) => k !== this.cacheKey[j])) {
      this.cacheKey = key;
      this.cache = document.createElement("canvas");
      this.cache.width = W;
      this.cache.height = H;
      const g = this.cache.getContext("2d");
      if (g) drawShape(g, s, hits, W, H, dpr, theme);
    }
    const ctx = this.el.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.cache, 0, 0);
    const y0 = Math.max(0, view0) * H;
    const y1 = Math.min(1, view1) * H;
    ctx.globalAlpha = 0.18;
    ctx.fillStyle = fg;
    ctx.fillRect(0, y0, W, Math.max(y1 - y0, 2 * dpr));
    ctx.globalAlpha = 1;
    ctx.strokeStyle = fg;
    ctx.lineWidth = dpr;
    ctx.strokeRect(0.5 * dpr, y0 + 0.5 * dpr, W - dpr, Math.max(y1 - y0, 2 * dpr) - dpr);
  }
}

/** The strip's picture: ticks under the lanes, the lanes and branch-offs on top. */
function drawShape(g: CanvasRenderingContext2D, s: LaneScene, hits: Uint8Array | null, W: number, H: number, dpr: number, theme: Theme): void {
  g.fillStyle = theme.bg;
  g.fillRect(0, 0, W, H);
  for (const t of minimapTicks(s, hits, H)) {
    g.fillStyle = t.color;
    g.fillRect(0, t.y, W, Math.max(2, Math.round(2 * dpr)));
  }
  const { lines, offs } = minimapShape(s);
  const lanes = Math.max(1, s.layout.lanes);
  const step = Math.min(LANE_PX * dpr, (W - 6 * dpr) / lanes);
  const X = (l: number): number => Math.round(4 * dpr + l * step) + 0.5;
  for (const active of [false, true]) {
    g.beginPath();
    for (const ln of lines) {
      if (ln.active !== active) continue;
      g.moveTo(X(ln.lane), ln.y0 * H);
      g.lineTo(X(ln.lane), Math.max(ln.y1 * H, ln.y0 * H + 1));
    }
    for (const o of offs) {
      if (o.active !== active) continue;
      g.moveTo(X(o.from), o.y * H - 2 * dpr);
      g.lineTo(X(o.to), o.y * H);
    }
    g.strokeStyle = active ? theme.active : theme.fg;
    g.globalAlpha = active ? 1 : 0.45;
    g.lineWidth = (active ? 2.5 : 1) * dpr;
    g.stroke();
  }
  g.globalAlpha = 1;
}
