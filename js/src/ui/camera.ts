// Pan and zoom of the canvas (d3-zoom), the stage size in CSS pixels, and the world <-> screen maps.
import { select } from "d3-selection";
import { zoom as d3zoom, zoomIdentity, ZoomTransform, type ZoomBehavior } from "d3-zoom";

export type ResizeResult = "unchanged" | "first" | "resized";

/** Only Ctrl/⌘ + wheel zooms: a plain wheel scrolls the page (the notebook), as readers
 * expect; drags pan; a secondary button does nothing. */
export function zoomGesture(ev: { type: string; ctrlKey?: boolean; metaKey?: boolean; button?: number }): boolean {
  if (ev.type === "wheel") return Boolean(ev.ctrlKey || ev.metaKey);
  return !ev.ctrlKey && !ev.button;
}

/** Most one wheel event may change the scale by: a mouse notch, a line-mode notch or one
 * pinch step. d3-zoom's default multiplies by 10 with ctrl held (pinches and ctrl+wheel
 * send ctrlKey), so one notch zoomed 4x and readers lost their place. */
export const MAX_WHEEL_STEP = 1.25;

/** Log2 of the scale change of one wheel event: proportional to deltaY, so trackpads
 * (many small deltas) stay smooth, and clamped so a notch (100 px, or 3 lines) is at most
 * ``MAX_WHEEL_STEP``; a page-mode delta counts as a full notch. */
export function wheelDelta(ev: { deltaY: number; deltaMode?: number }): number {
  const limit = Math.log2(MAX_WHEEL_STEP);
  const perUnit = ev.deltaMode === 1 ? limit / 3 : ev.deltaMode === 2 ? limit : limit / 100;
  const v = -ev.deltaY * perUnit;
  return Math.max(-limit, Math.min(limit, v));
}

/** The view's transform and size. ``onChange`` runs on every user pan or zoom.
 *
 * In lane mode (``fixedX`` set) the x offset is pinned and world x is in pixels: zoom
 * changes only the row pitch, so lanes never crowd together; y is kept so some rows stay
 * on screen (``rowsHeight``: the world height of every row). */
export class Camera {
  transform: ZoomTransform = zoomIdentity;
  width = 0;
  height = 0;
  dpr = 1;
  fixedX: number | null = null;
  rowsHeight = 0;
  private zoomer: ZoomBehavior<HTMLCanvasElement, unknown>;

  constructor(
    private canvas: HTMLCanvasElement,
    onChange: (user: boolean) => void,
  ) {
    this.zoomer = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([0.01, 4])
      .filter(zoomGesture)
      .wheelDelta(wheelDelta)
      .constrain((t) => this.constrain(t))
      .on("zoom", (ev: { transform: ZoomTransform; sourceEvent: unknown }) => {
        this.transform = ev.transform;
        onChange(Boolean(ev.sourceEvent));
      });
    select(canvas).call(this.zoomer).on("dblclick.zoom", null);
  }

  /** Pin x in lane mode and keep at least a third of the stage on the rows. */
  private constrain(t: ZoomTransform): ZoomTransform {
    if (this.fixedX === null) return t;
    const h = this.rowsHeight * t.k;
    const lo = Math.min(this.height / 3 - h, this.height / 3);
    const hi = Math.max((this.height * 2) / 3, 0);
    const y = Math.min(Math.max(t.y, lo), hi);
    return t.x === this.fixedX && y === t.y ? t : new ZoomTransform(t.k, this.fixedX, y);
  }

  /** World x to screen: scaled, or in pixels in lane mode. */
  private kx(): number {
    return this.fixedX === null ? this.transform.k : 1;
  }

  dispose(): void {
    select(this.canvas).on(".zoom", null);
  }

  /** Let the user zoom out to ``minK`` (the smallest readable scale of the view) and in
   * to 4x. */
  setMinScale(minK: number): void {
    this.zoomer.scaleExtent([Math.min(minK, 4), 4]);
  }

  set(t: ZoomTransform): void {
    t = this.constrain(t);
    this.transform = t;
    select(this.canvas).call(this.zoomer.transform, t);
  }

  /** Scale ``k`` with world point (wx, wy) at screen fractions (fx, fy) of the stage. */
  lookAt(wx: number, wy: number, k: number, fx = 0.5, fy = 0.5): void {
    const kx = this.fixedX === null ? k : 1;
    this.set(new ZoomTransform(k, this.width * fx - wx * kx, this.height * fy - wy * k));
  }

  panBy(dx: number, dy: number): void {
    const t = this.transform;
    this.transform = this.constrain(new ZoomTransform(t.k, t.x + dx, t.y + dy));
  }

  toWorld(px: number, py: number): [number, number] {
    const t = this.transform;
    return [(px - t.x) / this.kx(), (py - t.y) / t.k];
  }

  toScreen(wx: number, wy: number): [number, number] {
    const t = this.transform;
    return [wx * this.kx() + t.x, wy * t.k + t.y];
  }

  inView(sx: number, sy: number, margin = 0): boolean {
    return sx >= margin && sy >= margin && sx <= this.width - margin && sy <= this.height - margin;
  }

  /** Match the canvas to the stage's size; what was in the middle stays in the middle. */
  resize(stage: Element): ResizeResult {
    const r = stage.getBoundingClientRect();
    if (r.width < 10 || r.height < 10) return "unchanged";
    const w = Math.round(r.width);
    const h = Math.round(r.height);
    const dpr = window.devicePixelRatio || 1;
    if (w === this.width && h === this.height && dpr === this.dpr) return "unchanged";
    const first = this.width === 0;
    if (!first) {
      const t = this.transform;
      this.set(t.translate((w - this.width) / 2 / t.k, (h - this.height) / 2 / t.k));
    }
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    return first ? "first" : "resized";
  }
}
