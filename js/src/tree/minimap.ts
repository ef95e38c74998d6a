/**
 * The overview strip of the tree view: the whole session top to bottom in a thin column at
 * the stage's right edge, with its branch starts, compactions, errors and search hits as
 * ticks and the part on screen as a box. Click or drag in it to go there. The ticks are
 * drawn once per layout into an offscreen canvas, so a frame only copies it.
 */

import { COLORS, Flag, Kind } from "../model/constants";
import { el } from "../ui/dom";
import { Rank, type LaneScene } from "./lanescene";

export const MINIMAP_W = 14;

/** Where each row's tick goes, and its colour (pure: tested without a canvas). */
export function minimapTicks(s: LaneScene, hits: Uint8Array | null, height: number): { y: number; color: string }[] {
  const m = s.disp.m;
  const out: { y: number; color: string }[] = [];
  if (!m || height <= 0) return out;
  const lastY = new Map<string, number>();
  for (let r = 0; r < m; r++) {
    const i = s.disp.entry[s.layout.byRow[r]];
    let color = "";
    if (hits && hits[i]) color = COLORS.search;
    else if (s.cols.flags[i] & Flag.Error) color = COLORS.error;
    else if (s.cols.kind[i] === Kind.Compaction) color = COLORS.compaction;
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
  draw(s: LaneScene, hits: Uint8Array | null, height: number, dpr: number, view0: number, view1: number, bg: string, fg: string): void {
    this.el.classList.remove("pnb-hidden");
    const W = Math.round(MINIMAP_W * dpr);
    const H = Math.round(height * dpr);
    if (this.el.width !== W || this.el.height !== H) {
      this.el.width = W;
      this.el.height = H;
      this.el.style.height = `${height}px`;
    }
    const key = [s, hits, H];
    if (!this.cache || key.some((k, j) => k !== this.cacheKey[j])) {
      this.cacheKey = key;
      this.cache = document.createElement("canvas");
      this.cache.width = W;
      this.cache.height = H;
      const g = this.cache.getContext("2d");
      if (g) {
        g.fillStyle = bg;
        g.fillRect(0, 0, W, H);
        for (const t of minimapTicks(s, hits, H)) {
          g.fillStyle = t.color;
          g.fillRect(Math.round(2 * dpr), t.y, W - Math.round(4 * dpr), Math.max(1, Math.round(dpr)));
        }
      }
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
