/**
 * The Tree view behind the coordinator's ``GraphView``: the commit-graph rows, folded
 * runs when every row would not fit readably, the overview strip, and the zoom that
 * opens folds in view and closes them again.
 */

import { ZoomTransform } from "d3-zoom";
import { buildDisplay, type Display } from "../model/display";
import type { DrawStats, Marks, Theme } from "../ui/canvas";
import type { GraphHost, GraphSource, GraphView, Hit, Stage, Transform } from "../ui/graphview";
import { nodeOfEntry } from "../ui/graphview";
import { foldRuns } from "./fold";
import { MIN_ROW_K, fitLanes, hitLane, nodeAtFraction, rowWindow } from "./framing";
import { LANE_SPACING, layoutLanes, type LaneLayout } from "./lanes";
import { buildLaneScene, type LaneScene } from "./lanescene";
import { LANE_LEFT, drawLanes } from "./lanesdraw";
import { Minimap } from "./minimap";

/** Zooming the Tree in to this scale unfolds the folded rows on screen. */
const UNFOLD_K = 1.25;
/** Zooming the Tree back out past this scale folds them again. */
const REFOLD_K = 0.9;
const NONE: ReadonlySet<number> = new Set();

export class TreeView implements GraphView {
  readonly kind = "lanes";
  readonly fixedX = LANE_LEFT;
  disp!: Display;
  layout!: LaneLayout;
  scene!: LaneScene;
  /** Whether runs may fold (the Transcript shares this display unfolded). */
  foldable = true;
  /** Whether runs fold now (every row would not fit the stage readably). */
  folding = false;
  /** Runs the reader opened, by first entry. */
  private unfolded = new Set<number>();
  private minimap: Minimap;
  private built: { cols: unknown; tree: unknown; vis: unknown } | null = null;
  private last: { t: Transform; stage: Stage } = { t: { k: 1, x: 0, y: 0 }, stage: { width: 0, height: 0 } };

  constructor(private host: GraphHost) {
    this.minimap = new Minimap((f) => this.jumpToFraction(f));
  }

  get overlay(): HTMLElement {
    return this.minimap.el;
  }

  get rowsHeight(): number {
    return this.layout ? this.layout.maxY + this.layout.dy : 0;
  }

  /** Whether every row would not fit the stage at the readable pitch. */
  private wouldFold(src: GraphSource, stage: Stage): boolean {
    return this.foldable && src.vis.count * LANE_SPACING.dy * MIN_ROW_K > Math.max(stage.height || 600, 50) - 24;
  }

  build(src: GraphSource, stage: Stage): void {
    const wasFolded = this.folding;
    this.folding = this.wouldFold(src, stage);
    // Unfolded, the display depends on the data and filter only: going from the Tree to
    // the Transcript and back keeps it rather than laying out a whole session again.
    const b = this.built;
    if (b && !this.folding && !wasFolded && b.cols === src.cols && b.tree === src.tree && b.vis === src.vis) return;
    const fold = this.folding ? foldRuns(src.cols, src.tree, src.vis, { keep: src.selected >= 0 ? [src.selected] : [], unfolded: this.unfolded }) : null;
    this.disp = buildDisplay(src.cols, src.tree, src.vis, "tree", NONE, fold);
    this.layout = layoutLanes(src.cols, src.tree, this.disp);
    this.scene = buildLaneScene(src.cols, src.tree, this.disp, this.layout);
    this.built = { cols: src.cols, tree: src.tree, vis: src.vis };
  }

  stale(src: GraphSource, stage: Stage): boolean {
    return this.wouldFold(src, stage) !== this.folding;
  }

  fit(stage: Stage): ZoomTransform {
    return fitLanes(this.scene, stage.height);
  }

  scaleExtent(): [number, number] {
    return [MIN_ROW_K, 4];
  }

  hit(px: number, py: number, t: Transform): Hit {
    return hitLane(px, py, t, this.layout, this.disp.m);
  }

  draw(ctx: CanvasRenderingContext2D, t: Transform, stage: Stage, dpr: number, theme: Theme, marks: Marks): DrawStats {
    this.last = { t, stage };
    const stats = drawLanes(ctx, this.scene, t, stage.width, stage.height, dpr, theme, marks);
    const window = rowWindow(this.scene, t, stage.height);
    if (!window) this.minimap.hide();
    else this.minimap.draw(this.scene, marks.hits, stage.height, dpr, window[0], window[1], theme.bg, theme.fg);
    return stats;
  }

  /** Hide the overview (another view covers the stage). */
  hideOverlay(): void {
    this.minimap.hide();
  }

  /** Centre the row at fraction ``f`` of the session (the overview strip). */
  private jumpToFraction(f: number): void {
    const d = nodeAtFraction(this.scene, f);
    if (d < 0) return;
    const { t, stage } = this.last;
    this.host.moveTo(new ZoomTransform(t.k, LANE_LEFT, stage.height / 2 - this.layout.y[d] * t.k));
  }

  zoomed(src: GraphSource, stage: Stage, t: ZoomTransform, before: number): ZoomTransform | null {
    if (!this.folding) return null;
    const k = t.k;
    if (k > before && k >= UNFOLD_K) {
      const L = this.layout;
      const rowPx = L.dy * k;
      const r0 = Math.max(0, Math.floor(-t.y / rowPx));
      const r1 = Math.min(this.disp.m - 1, Math.ceil((stage.height - t.y) / rowPx));
      const open: number[] = [];
      for (let r = r0; r <= r1; r++) {
        const d = L.byRow[r];
        if (this.disp.isSeg[d]) open.push(this.disp.entry[d]);
      }
      if (open.length) return this.anchored(src, stage, t, () => open.forEach((h) => this.unfolded.add(h)));
    } else if (k < before && before >= REFOLD_K && k < REFOLD_K && this.unfolded.size) {
      return this.anchored(src, stage, t, () => this.unfolded.clear());
    }
    return null;
  }

  /** Change the folds and rebuild, keeping the entry at the stage's middle in place. */
  private anchored(src: GraphSource, stage: Stage, t: ZoomTransform, change: () => void): ZoomTransform {
    const rowPx = this.layout.dy * t.k;
    const r = Math.min(Math.max(0, Math.round((stage.height / 2 - t.y) / rowPx)), this.disp.m - 1);
    const entry = r >= 0 ? this.disp.entry[this.layout.byRow[r]] : -1;
    const sy = r * rowPx + t.y;
    change();
    this.build(src, stage);
    const d = entry >= 0 ? this.disp.nodeOf[entry] : -1;
    return d >= 0 ? new ZoomTransform(t.k, t.x, sy - this.layout.y[d] * t.k) : t;
  }

  press(src: GraphSource, stage: Stage, hit: Exclude<Hit, null>, t: ZoomTransform): ZoomTransform | null {
    if (hit.type !== "node" || !this.disp.isSeg[hit.d]) return null;
    this.unfolded.add(this.disp.entry[hit.d]);
    this.build(src, stage);
    return t;
  }

  reveal(src: GraphSource, stage: Stage, entry: number): boolean {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0 || !this.disp.isSeg[d]) return false;
    // Asked to show this entry: open the folded row it is in.
    this.unfolded.add(this.disp.entry[d]);
    this.build(src, stage);
    return true;
  }

  toggle(src: GraphSource, stage: Stage, entry: number): boolean {
    return this.reveal(src, stage, entry);
  }

  frame(entry: number, stage: Stage, t: ZoomTransform, k?: number, fy = 0.5): ZoomTransform | null {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return null;
    const kk = k ?? Math.max(t.k, 1);
    if (fy !== 0.5) return new ZoomTransform(kk, LANE_LEFT, stage.height * fy - this.layout.y[d] * kk);
    return this.frameBranch(d, kk, stage, t);
  }

  /** Show a row with its branch's context. The fork (or root) the branch came from goes
   * near the top and the row near the bottom when both fit, else the row sits at three
   * quarters of the height, so rows above it (its branch) fill the stage. */
  private frameBranch(d: number, k: number, stage: Stage, t: ZoomTransform): ZoomTransform {
    const L = this.layout;
    const disp = this.disp;
    let f = disp.dparent[d];
    while (f >= 0 && disp.childStart[f + 1] - disp.childStart[f] < 2) f = disp.dparent[f];
    const H = stage.height;
    const rowPx = L.dy * k;
    const r = L.row[d];
    const rf = f >= 0 ? L.row[f] : 0;
    const y =
      (r - rf + 2) * rowPx <= H * 0.9
        ? Math.max(H * 0.05 + rowPx - rf * rowPx, H - rowPx * 1.5 - r * rowPx)
        : H * 0.75 - r * rowPx;
    return new ZoomTransform(k, t.x, Math.min(y, H * 0.5 - r * rowPx + H * 0.4));
  }

  reset(): void {
    this.unfolded.clear();
    this.built = null;
  }
}
