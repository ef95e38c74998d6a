/**
 * The Branches view behind the coordinator's ``GraphView``: run boxes in a tidy layout,
 * side subtrees drawn as one box when they would not fit across the stage, runs the
 * reader expanded, and the zoom that opens subtree boxes in view.
 */

import type { Quadtree } from "d3-quadtree";
import { ZoomTransform } from "d3-zoom";
import { buildDisplay, type Display } from "../model/display";
import type { DrawStats, Marks, Theme } from "../ui/canvas";
import type { GraphSource, GraphView, Hit, Layout, Stage, Transform } from "../ui/graphview";
import { nodeOfEntry } from "../ui/graphview";
import { chooseAggregates, columnCapacity } from "./aggregate";
import { BRANCH_MIN_K, SEG_W, draw } from "./draw";
import { FALLBACK_BRANCH_K, fitBranches } from "./framing";
import { hitTest, nodeIndex } from "./hit";
import { SPACING, layoutDisplay } from "./layout";
import { buildScene, type Scene } from "./scene";

/** The scale the view opens at (or larger), for which subtrees are aggregated to fit the
 * stage's width. */
const OPEN_BRANCH_K = FALLBACK_BRANCH_K;
/** Zooming in to this scale opens the subtree boxes on screen. */
const UNFOLD_K = 1.25;

export class BranchesView implements GraphView {
  readonly kind = "tidy";
  readonly fixedX = null;
  readonly rowsHeight = 0;
  readonly overlay = null;
  version = 0;
  disp!: Display;
  layout!: Layout;
  scene!: Scene;
  /** Runs the reader expanded into their entries, by head entry. */
  private expanded = new Set<number>();
  /** Subtrees the reader opened (they are never drawn as one box again). */
  private opened = new Set<number>();
  private builtCapacity = -1;
  private index: Quadtree<number> | null = null;

  /** How many columns of boxes fit across the stage at the opening scale. */
  private capacity(stage: Stage): number {
    return columnCapacity(stage.width || 1000, OPEN_BRANCH_K, SPACING.branches.dx, SEG_W);
  }

  build(src: GraphSource, stage: Stage): void {
    this.disp = buildDisplay(src.cols, src.tree, src.vis, "branches", this.expanded);
    // Side subtrees that would not fit across the stage readably become one box each.
    const capacity = this.capacity(stage);
    this.builtCapacity = capacity;
    const agg = chooseAggregates(this.disp, src.tree, capacity, this.opened);
    if (agg.size) this.disp = buildDisplay(src.cols, src.tree, src.vis, "branches", this.expanded, null, agg);
    const sp = SPACING.branches;
    const onActive = src.tree.onActive;
    const entry = this.disp.entry;
    this.layout = layoutDisplay(this.disp, sp.dx, sp.dy, (d) => onActive[entry[d]] === 1);
    this.scene = buildScene(src.cols, src.tree, this.disp, this.layout, "branches");
    this.index = null;
    this.version++;
  }

  stale(_src: GraphSource, stage: Stage): boolean {
    return this.capacity(stage) !== this.builtCapacity;
  }

  fit(stage: Stage): ZoomTransform {
    return fitBranches(this.scene, this.layout, stage.width, stage.height);
  }

  scaleExtent(): [number, number] {
    return [BRANCH_MIN_K, 4];
  }

  hit(px: number, py: number, t: Transform): Hit {
    return hitTest(
      px,
      py,
      t,
      this.disp,
      this.layout,
      this.scene.cols.kind,
      () => (this.index ??= nodeIndex(this.layout, this.disp.m)),
      this.scene.boxHalf,
    );
  }

  draw(ctx: CanvasRenderingContext2D, t: Transform, stage: Stage, dpr: number, theme: Theme, marks: Marks): DrawStats {
    return draw(ctx, this.scene, t, stage.width, stage.height, dpr, theme, marks);
  }

  zoomed(src: GraphSource, stage: Stage, t: ZoomTransform, before: number): ZoomTransform | null {
    if (t.k > before && t.k >= UNFOLD_K && this.disp.aggregates.size) return this.openAggregatesInView(src, stage, t);
    return null;
  }

  /** Open every subtree box on screen, the one nearest the middle staying put. */
  private openAggregatesInView(src: GraphSource, stage: Stage, t: ZoomTransform): ZoomTransform | null {
    let best = -1;
    let bestDist = Infinity;
    const open: number[] = [];
    const screen = (d: number): [number, number] => [this.layout.x[d] * t.k + t.x, this.layout.y[d] * t.k + t.y];
    for (const h of this.disp.aggregates.keys()) {
      const [px, py] = screen(this.disp.nodeOf[h]);
      if (px < 0 || py < 0 || px > stage.width || py > stage.height) continue;
      open.push(h);
      const dist = Math.hypot(px - stage.width / 2, py - stage.height / 2);
      if (dist < bestDist) {
        bestDist = dist;
        best = h;
      }
    }
    if (best < 0) return null;
    const [sx, sy] = screen(this.disp.nodeOf[best]);
    open.forEach((h) => this.opened.add(h));
    this.build(src, stage);
    const d = this.disp.nodeOf[best];
    return new ZoomTransform(t.k, sx - this.layout.x[d] * t.k, sy - this.layout.y[d] * t.k);
  }

  press(src: GraphSource, stage: Stage, hit: Exclude<Hit, null>, t: ZoomTransform): ZoomTransform | null {
    if (hit.type === "badge") {
      this.expanded.delete(hit.head);
      this.build(src, stage);
      return t;
    }
    if (!this.disp.isSeg[hit.d]) return null;
    this.toggleHead(src, stage, this.disp.entry[hit.d]);
    return t;
  }

  /** Open a subtree box, or expand (collapse) a run box. */
  private toggleHead(src: GraphSource, stage: Stage, head: number): void {
    if (this.disp.aggregates.has(head)) this.opened.add(head);
    else if (this.expanded.has(head)) this.expanded.delete(head);
    else this.expanded.add(head);
    this.build(src, stage);
  }

  /** Keyboard: expand or collapse the run holding ``entry``. */
  toggle(src: GraphSource, stage: Stage, entry: number): boolean {
    if (entry < 0 || this.disp.nodeOf[entry] < 0) return false;
    const head = this.disp.segOf[entry];
    const s = this.disp.segments.get(head);
    if (!s || s.size < 2) return false;
    this.toggleHead(src, stage, head);
    return true;
  }

  reveal(src: GraphSource, stage: Stage, entry: number): boolean {
    let rebuilt = false;
    for (let guard = 0; entry >= 0 && guard < 64; guard++) {
      const d = this.disp.nodeOf[entry];
      const h = d >= 0 ? this.disp.entry[d] : -1;
      if (!this.disp.aggregates.has(h)) break;
      this.opened.add(h);
      this.build(src, stage);
      rebuilt = true;
    }
    const d = entry >= 0 ? this.disp.nodeOf[entry] : -1;
    if (d >= 0 && this.disp.isSeg[d]) {
      this.expanded.add(this.disp.segOf[entry]);
      this.build(src, stage);
      rebuilt = true;
    }
    return rebuilt;
  }

  frame(entry: number, stage: Stage, t: ZoomTransform, k?: number, fy = 0.5): ZoomTransform | null {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return null;
    const kk = k ?? Math.max(t.k, OPEN_BRANCH_K);
    return new ZoomTransform(kk, stage.width * 0.5 - this.layout.x[d] * kk, stage.height * fy - this.layout.y[d] * kk);
  }

  reset(): void {
    this.expanded.clear();
    this.opened.clear();
    this.builtCapacity = -1;
  }
}
