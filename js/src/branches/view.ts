/**
 * The Branches view behind the coordinator's ``GraphView``: run boxes in a tidy layout,
 * coarsened (``coarsen.ts``) so that Fit shows the whole session with every box readable,
 * and opened level by level as the reader zooms in (semantic zoom). A click on a box
 * opens it and frames what it held; Fit goes back to the whole session.
 */

import type { Quadtree } from "d3-quadtree";
import { ZoomTransform } from "d3-zoom";
import { buildDisplay, type Display } from "../model/display";
import type { DrawStats, Marks, Theme } from "../ui/canvas";
import type { GraphHost, GraphSource, GraphView, Hit, Layout, Stage, Transform } from "../ui/graphview";
import { nodeOfEntry } from "../ui/graphview";
import { FIT_K, GRID, READABLE_K, levelAt, levelDisplay, roomAt } from "./aggregate";
import { baseFacts, wrapFor, type Base } from "./coarsen";
import { draw } from "./draw";
import { fitBranches } from "./framing";
import { hitTest, nodeIndex } from "./hit";
import { SPACING, layoutDisplay } from "./layout";
import { buildScene, type Scene } from "./scene";
import { wrapRoots } from "./wrap";
import { FAST_ZOOM_MS, ZoomPace } from "../ui/zoompace";

/** One level of detail, built. */
interface Level {
  disp: Display;
  layout: Layout;
  scene: Scene;
}

/** The most levels kept built (zooming back and forth reuses them). */
const KEEP_LEVELS = 8;

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
  /** Boxes the reader opened (by head entry): open at every level until the next Fit. */
  private opened = new Set<number>();
  /** The level shown (0: the whole session at Fit) and the Fit scale of level 0. */
  private level = 0;
  private fitK = FIT_K;
  private base: Base | null = null;
  private levels = new Map<number, Level>();
  private builtFor: { src: GraphSource | null; width: number; height: number } = { src: null, width: 0, height: 0 };
  private index: Quadtree<number> | null = null;
  /** Pending build of the levels next to the one shown, while the reader looks. */
  private prefetch: ReturnType<typeof setTimeout> | null = null;
  /** Boxes the zoom opened around its focus, by the level that opened them: zooming back
   * out below that level closes them again. */
  private zoomOpened: { level: number; head: number }[] = [];
  /** The camera of the latest frame: where a zoom started from. */
  private lastT: Transform | null = null;
  /** When the reader last zoomed (ms); the pending build a fast zoom asked for, and the
   * focus of its first notch. */
  private pace = new ZoomPace();
  private pending: ReturnType<typeof setTimeout> | null = null;
  private pendingFocus: [number, number] | null = null;

  constructor(private host: GraphHost | null = null) {}

  build(src: GraphSource, stage: Stage): void {
    this.base = baseFacts(buildDisplay(src.cols, src.tree, src.vis, "branches", this.expanded), src.cols, src.tree);
    this.levels = new Map();
    this.builtFor = { src, width: stage.width, height: stage.height };
    this.fitK = this.fitScale(src, stage);
    this.show(src, stage, this.level);
  }

  /** The level ``level`` built for this stage (kept for the next time). */
  private levelOf(src: GraphSource, stage: Stage, level: number): Level {
    let L = this.levels.get(level);
    if (L) return L;
    const room = roomAt(stage.width || 1000, stage.height || 600, level);
    const { disp, base } = levelDisplay(src.cols, src.tree, src.vis, this.expanded, room, this.opened, this.base ?? undefined);
    this.base = base;
    const onActive = src.tree.onActive;
    const sp = SPACING.branches;
    const tidy = layoutDisplay(disp, sp.dx, sp.dy, (d) => onActive[disp.entry[d]] === 1);
    const layout = wrapRoots(disp, tidy, wrapFor(room, GRID, (d) => disp.isSeg[d] === 1));
    L = { disp, layout, scene: buildScene(src.cols, src.tree, disp, layout, "branches") };
    if (this.levels.size >= KEEP_LEVELS) this.levels.delete(this.levels.keys().next().value as number);
    this.levels.set(level, L);
    return L;
  }

  private show(src: GraphSource, stage: Stage, level: number): void {
    const L = this.levelOf(src, stage, level);
    this.level = level;
    this.disp = L.disp;
    this.layout = L.layout;
    this.scene = L.scene;
    this.index = null;
    this.version++;
  }

  /** The scale Fit shows level 0 at. */
  private fitScale(src: GraphSource, stage: Stage): number {
    const L = this.levelOf(src, stage, 0);
    return fitBranches(L.scene, L.layout, stage.width, stage.height).k;
  }

  stale(_src: GraphSource, stage: Stage): boolean {
    return stage.width !== this.builtFor.width || stage.height !== this.builtFor.height;
  }

  /** The whole session: what the reader opened closes again, level 0 shows. */
  fit(stage: Stage): ZoomTransform {
    const src = this.builtFor.src;
    if (src && (this.opened.size || this.expanded.size || this.level !== 0 || this.stale(src, stage))) {
      this.opened.clear();
      this.zoomOpened = [];
      this.expanded.clear();
      this.level = 0;
      this.build(src, stage);
    }
    return fitBranches(this.scene, this.layout, stage.width, stage.height);
  }

  scaleExtent(): [number, number] {
    return [Math.min(this.fitK, READABLE_K) / 2, 4];
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
    this.lastT = t;
    return draw(ctx, this.scene, t, stage.width, stage.height, dpr, theme, marks);
  }

  /** Semantic zoom: each step of ``LEVEL_STEP`` past the Fit scale shows the level with
   * that much more room, and opens the box nearest the zoom's focus (the point the
   * zoom keeps still, under the pointer), so zooming into a region shows its detail
   * first; the entry nearest the focus stays where it is. Zooming out closes what the
   * zoom opened at the levels left. */
  zoomed(src: GraphSource, stage: Stage, t: ZoomTransform): ZoomTransform | null {
    return this.pace.notch((fast) => this.zoomTo(src, stage, t, fast));
  }

  private zoomTo(src: GraphSource, stage: Stage, t: ZoomTransform, fast: boolean): ZoomTransform | null {
    const level = levelAt(t.k, this.fitK);
    if (level === this.level) {
      this.pendingFocus = null;
      return null;
    }
    const focus = this.pendingFocus ?? this.focusOf(t, stage);
    // Zooming fast: the level shown stays, drawn at the new scale, and the one asked for
    // is built once the notches pause, outside any frame.
    if (fast && this.host?.rezoom) {
      this.pendingFocus = focus;
      this.buildSoon();
      return null;
    }
    this.pendingFocus = null;
    const [fx, fy] = focus;
    const anchor = this.nearest(t, fx, fy);
    const entry = anchor >= 0 ? this.disp.entry[anchor] : -1;
    const [sx, sy] = anchor >= 0 ? [this.layout.x[anchor] * t.k + t.x, this.layout.y[anchor] * t.k + t.y] : [0, 0];
    const dropped = this.zoomOpened.filter((o) => o.level > level);
    if (dropped.length) {
      this.zoomOpened = this.zoomOpened.filter((o) => o.level <= level);
      for (const o of dropped) this.opened.delete(o.head);
      this.levels = new Map();
    }
    if (level > this.level && anchor >= 0 && this.disp.aggregates.has(entry) && !this.opened.has(entry)) {
      this.opened.add(entry);
      this.zoomOpened.push({ level, head: entry });
      this.levels = new Map();
    }
    this.show(src, stage, level);
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return t;
    return new ZoomTransform(t.k, sx - this.layout.x[d] * t.k, sy - this.layout.y[d] * t.k);
  }

  /** Ask the host to zoom again (to the camera as it is then) once the notches pause. */
  private buildSoon(): void {
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      this.pace.reset();
      this.host?.rezoom?.();
    }, FAST_ZOOM_MS);
  }

  /** The screen point a zoom from the latest frame to ``t`` keeps still (the pointer,
   * for a wheel), or the stage's middle. */
  private focusOf(t: Transform, stage: Stage): [number, number] {
    const p = this.lastT;
    const middle: [number, number] = [stage.width / 2, stage.height / 2];
    if (!p || Math.abs(t.k / p.k - 1) < 1e-3) return middle;
    const r = t.k / p.k;
    const fx = (t.x - p.x * r) / (1 - r);
    const fy = (t.y - p.y * r) / (1 - r);
    if (!(fx >= 0 && fx <= stage.width && fy >= 0 && fy <= stage.height)) return middle;
    return [fx, fy];
  }

  /** The display node nearest screen point (px, py), or -1. */
  private nearest(t: Transform, px: number, py: number): number {
    if (!this.disp.m) return -1;
    const d = (this.index ??= nodeIndex(this.layout, this.disp.m)).find((px - t.x) / t.k, (py - t.y) / t.k);
    return d ?? -1;
  }

  press(src: GraphSource, stage: Stage, hit: Exclude<Hit, null>, t: ZoomTransform): ZoomTransform | null {
    if (hit.type === "badge") {
      this.expanded.delete(hit.head);
      this.build(src, stage);
      return t;
    }
    if (!this.disp.isSeg[hit.d]) return null;
    const head = this.disp.entry[hit.d];
    if (this.disp.aggregates.has(head)) return this.openBox(src, stage, hit.d);
    this.toggleHead(src, stage, head);
    return t;
  }

  /** Open the box at display node ``d`` and frame what it held (at a readable scale). */
  private openBox(src: GraphSource, stage: Stage, d: number): ZoomTransform {
    const held: number[] = [];
    const was = this.disp.nodeOf;
    for (let i = 0; i < was.length; i++) if (was[i] === d) held.push(i);
    this.keepOpen(this.disp.entry[d]);
    this.levels = new Map();
    this.show(src, stage, this.level);
    const nodes = new Set<number>();
    for (const i of held) if (this.disp.nodeOf[i] >= 0) nodes.add(this.disp.nodeOf[i]);
    return fitBranches(this.scene, this.layout, stage.width, stage.height, nodes);
  }

  /** The reader opened box ``head``: open until the next Fit, whatever the zoom. */
  private keepOpen(head: number): void {
    this.opened.add(head);
    this.zoomOpened = this.zoomOpened.filter((o) => o.head !== head);
  }

  /** Expand (collapse) a run box into its entries. */
  private toggleHead(src: GraphSource, stage: Stage, head: number): void {
    const open = !this.expanded.has(head);
    if (open) this.expanded.add(head);
    else this.expanded.delete(head);
    this.build(src, stage);
    // Its entries, now a node each, must not land in a span box.
    if (open) this.reveal(src, stage, head);
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

  /** Open the boxes that hold ``entry`` (spans, branches, roots), so the run holding it
   * shows; the run stays one box, which the selection rings. */
  reveal(src: GraphSource, stage: Stage, entry: number): boolean {
    let rebuilt = false;
    for (let guard = 0; entry >= 0 && guard < 256; guard++) {
      const d = this.disp.nodeOf[entry];
      const h = d >= 0 ? this.disp.entry[d] : -1;
      if (!this.disp.aggregates.has(h)) break;
      this.keepOpen(h);
      this.levels = new Map();
      this.show(src, stage, this.level);
      rebuilt = true;
    }
    return rebuilt;
  }

  frame(entry: number, stage: Stage, t: ZoomTransform, k?: number, fy = 0.5): ZoomTransform | null {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return null;
    const kk = k ?? Math.max(t.k, this.fitK, READABLE_K);
    return new ZoomTransform(kk, stage.width * 0.5 - this.layout.x[d] * kk, stage.height * fy - this.layout.y[d] * kk);
  }

  reset(): void {
    if (this.prefetch !== null) clearTimeout(this.prefetch);
    this.prefetch = null;
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = null;
    this.pendingFocus = null;
    this.expanded.clear();
    this.opened.clear();
    this.zoomOpened = [];
    this.level = 0;
    this.levels = new Map();
    this.base = null;
  }
}
