/**
 * The canvas side of the coordinator: the camera over the graph view shown, its frames,
 * and what moves it (Fit, framing an entry, the zoom that changes the level of detail).
 * It knows the view only through ``GraphView``; whenever a call rebuilt the view's
 * display, the host redoes what depends on it (``afterBuild``).
 */

import type { ZoomTransform } from "d3-zoom";
import { Camera } from "./camera";
import type { DrawStats, Marks, Theme } from "./canvas";
import { nodeOfEntry, type GraphSource, type GraphView, type Hit, type Stage } from "./graphview";

export interface GraphStageHost {
  /** The graph view shown, or null when none is (the Transcript covers the stage). */
  graph(): GraphView | null;
  source(): GraphSource;
  /** Redo what follows a build of the view's display. */
  afterBuild(): void;
  marks(): Marks;
  theme(): Theme;
  /** A frame was drawn (its figures; texts it still needs). */
  drawn(stats: DrawStats): void;
  /** The camera moved (``user``: by the reader), before the next frame. */
  moved(user: boolean): void;
}

export class GraphStage {
  readonly camera: Camera;
  private frame = 0;
  /** The scale before the latest camera change (a zoom, not a pan, moves it). */
  private lastK = 1;

  constructor(
    canvas: HTMLCanvasElement,
    private ctx: CanvasRenderingContext2D,
    private host: GraphStageHost,
  ) {
    this.camera = new Camera(canvas, (user) => {
      host.moved(user);
      if (user) this.zoomed();
      this.lastK = this.camera.transform.k;
      this.scheduleDraw();
    });
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    this.camera.dispose();
  }

  size(): Stage {
    return { width: this.camera.width, height: this.camera.height };
  }

  /** Run ``fn`` on the view shown; when it rebuilt the display, the host redoes what
   * follows. Returns null when no graph view is shown. */
  via<T>(fn: (g: GraphView, src: GraphSource, stage: Stage) => T): T | null {
    const g = this.host.graph();
    if (!g) return null;
    const v = g.version;
    const out = fn(g, this.host.source(), this.size());
    if (g.version !== v) this.host.afterBuild();
    return out;
  }

  /** The camera's limits as the view says. */
  limit(g: GraphView): void {
    this.camera.fixedX = g.fixedX;
    this.camera.rowsHeight = g.rowsHeight;
    this.camera.setMinScale(g.scaleExtent(this.size())[0]);
  }

  /** Semantic zoom: the view opens or closes aggregates; the reader's place stays. */
  private zoomed(): void {
    const t = this.via((g, src, stage) => g.zoomed(src, stage, this.camera.transform, this.lastK));
    if (t) this.camera.set(t);
  }

  /** The view has a level of detail ready that a zoom asked for earlier: show it now. */
  rezoom(): void {
    this.zoomed();
    this.scheduleDraw();
  }

  /** Show the whole session (the view builds the level of detail it needs). */
  fit(): void {
    const t = this.via((g, _src, stage) => g.fit(stage));
    if (t) this.camera.set(t);
  }

  /** Show an entry with its context (opening what hides it), at height ``fy`` of the
   * stage (fraction; default: as the view frames it). */
  centerOn(entry: number, k?: number, fy = 0.5): void {
    this.via((g, src, stage) => g.reveal(src, stage, entry));
    const t = this.via((g, _src, stage) => g.frame(entry, stage, this.camera.transform, k, fy));
    if (t) this.camera.set(t);
  }

  /** Move the camera there and draw. */
  moveTo(t: ZoomTransform): void {
    this.camera.set(t);
    this.drawNow();
  }

  /** Whether entry ``i``'s node is on screen, ``margin`` px in from the edges. */
  onScreen(i: number, margin: number): boolean {
    const g = this.host.graph();
    const d = g ? nodeOfEntry(g.disp, i) : -1;
    if (!g || d < 0) return false;
    return this.camera.inView(...this.camera.toScreen(g.layout.x[d], g.layout.y[d]), margin);
  }

  /** The thing under a point (canvas coordinates). */
  hit(px: number, py: number): Hit {
    return this.host.graph()?.hit(px, py, this.camera.transform, this.size()) ?? null;
  }

  scheduleDraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawNow();
    });
  }

  /** Draw synchronously; returns the time spent. Nothing when no graph view is shown:
   * drawing a whole session under the Transcript would only cost time. */
  drawNow(): number {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    const g = this.host.graph();
    if (!g) return 0;
    const { transform, dpr } = this.camera;
    const stats = g.draw(this.ctx, transform, this.size(), dpr, this.host.theme(), this.host.marks());
    this.host.drawn(stats);
    return stats.ms;
  }
}
