// Pan and zoom of the canvas (d3-zoom), the stage size in CSS pixels, and the world <-> screen maps.
import { select } from "d3-selection";
import { zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from "d3-zoom";

export type ResizeResult = "unchanged" | "first" | "resized";

/** The view's transform and size. ``onChange`` runs on every user pan or zoom. */
export class Camera {
  transform: ZoomTransform = zoomIdentity;
  width = 0;
  height = 0;
  dpr = 1;
  private zoomer: ZoomBehavior<HTMLCanvasElement, unknown>;

  constructor(
    private canvas: HTMLCanvasElement,
    onChange: () => void,
  ) {
    this.zoomer = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([0.01, 4])
      .on("zoom", (ev: { transform: ZoomTransform }) => {
        this.transform = ev.transform;
        onChange();
      });
    select(canvas).call(this.zoomer).on("dblclick.zoom", null);
  }

  dispose(): void {
    select(this.canvas).on(".zoom", null);
  }

  /** Let the user zoom out to ``minK`` (at most 0.5) and in to 4x. */
  setMinScale(minK: number): void {
    this.zoomer.scaleExtent([Math.min(minK, 0.5), 4]);
  }

  set(t: ZoomTransform): void {
    this.transform = t;
    select(this.canvas).call(this.zoomer.transform, t);
  }

  /** Scale ``k`` with world point (wx, wy) at screen fractions (fx, fy) of the stage. */
  lookAt(wx: number, wy: number, k: number, fx = 0.5, fy = 0.5): void {
    this.set(zoomIdentity.translate(this.width * fx - wx * k, this.height * fy - wy * k).scale(k));
  }

  panBy(dx: number, dy: number): void {
    const t = this.transform;
    this.transform = t.translate(dx / t.k, dy / t.k);
  }

  toWorld(px: number, py: number): [number, number] {
    const t = this.transform;
    return [(px - t.x) / t.k, (py - t.y) / t.k];
  }

  toScreen(wx: number, wy: number): [number, number] {
    const t = this.transform;
    return [wx * t.k + t.x, wy * t.k + t.y];
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
