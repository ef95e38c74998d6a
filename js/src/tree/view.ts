/**
 * The Tree view behind the coordinator's ``GraphView``: the commit-graph rows, folded
 * runs when every row would not fit readably, the overview strip, and the zoom that
 * opens folds in view and closes them again.
 */

import { ZoomTransform } from "d3-zoom";
import { buildDisplay, refold, type Display } from "../model/display";
import type { DrawStats, Marks, Theme } from "../ui/canvas";
import type { GraphHost, GraphSource, GraphView, Hit, Stage, Transform } from "../ui/graphview";
import { nodeOfEntry } from "../ui/graphview";
import { foldToFit, openFold, summaryText, type TreeFolds } from "./aggregate";
import { MIN_ROW_K, fitLanes, hitLane, nodeAtFraction, rowBudget, rowWindow } from "./framing";
import { layoutLanes, type LaneLayout } from "./lanes";
import { buildLaneScene, type LaneScene } from "./lanescene";
import { LANE_LEFT, drawLanes } from "./lanesdraw";
import { Minimap } from "./minimap";
import { FAST_ZOOM_MS, ZoomPace } from "../ui/zoompace";

/** Each level of detail past Fit holds this many times the rows of the one before; one
 * level per ``LEVEL_ZOOM`` of zoom, so the rows on screen keep about their number. */
const LEVEL_ROWS = 1.5625;
const LEVEL_ZOOM = 1.25;
const NONE: ReadonlySet<number> = new Set();

/** One build of the view: what a level of detail draws. */
interface Built {
  /** The level as it was built, before any fold opened around a selection: openings are
   * made from it, so they do not pile up as the reader selects one entry after another. */
  made?: Built;
  folds: TreeFolds;
  disp: Display;
  layout: LaneLayout;
  scene: LaneScene;
}

export class TreeView implements GraphView {
  readonly kind = "lanes";
  readonly fixedX = LANE_LEFT;
  disp!: Display;
  layout!: LaneLayout;
  scene!: LaneScene;
  /** Whether runs may fold (the Transcript shares this display unfolded). */
  foldable = true;
  /** Whether anything folds now (every row would not fit the stage readably). */
  folding = false;
  /** Builds so far (the coordinator redoes what follows a build when it changes). */
  version = 0;
  /** The level of detail built (0: Fit) and the scale of Fit at level 0. */
  private level = 0;
  private fitK = 1;
  /** An entry asked to be shown (besides the selection) keeps a row of its own. */
  private shown = -1;
  private minimap: Minimap;
  private src: GraphSource | null = null;
  private prefetching = false;
  /** The level to build ahead when the wait for it ends. */
  private ahead = 1;
  /** Builds by level, for this data, filter and stage height. A level shown for a
   * selection it folds away opens the fold that holds it (at Fit, in the level built with
   * the rows the opening needs to spare): a click on a row selects an entry that already
   * has its row, and rebuilds nothing. */
  private cache = new Map<number, Built>();
  /** Fit's level with rows to spare, by the rows spared (``spareLevel``). */
  private spare = new Map<number, Built>();
  private cacheKey: unknown[] = [];
  /** Level 0 as last built, for the overview strip: it shows the whole session's shape,
   * the same whatever the selection keeps on a row of its own. */
  private whole: LaneScene | null = null;
  private last: { t: Transform; stage: Stage } = { t: { k: 1, x: 0, y: 0 }, stage: { width: 0, height: 0 } };
  /** When the reader last zoomed (ms), and the pending build of the level a fast zoom
   * asked for. */
  private pace = new ZoomPace();
  private pending: ReturnType<typeof setTimeout> | null = null;

  constructor(private host: GraphHost) {
    this.minimap = new Minimap((f) => this.jumpToFraction(f));
  }

  get overlay(): HTMLElement {
    return this.minimap.el;
  }

  get rowsHeight(): number {
    return this.layout ? this.layout.maxY + this.layout.dy : 0;
  }

  /** The rows level ``j`` of detail may draw on this stage (Infinity when unfoldable). */
  private budget(j: number, stage: Stage): number {
    if (!this.foldable) return Infinity;
    return Math.floor(rowBudget(stage.height) * LEVEL_ROWS ** j);
  }

  /** The level of detail of scale ``k``: 0 at Fit and below, one more per zoom step. */
  levelAt(k: number): number {
    return Math.max(0, Math.floor(Math.log(k / this.fitK) / Math.log(LEVEL_ZOOM) + 1e-6));
  }

  build(src: GraphSource, stage: Stage): void {
    this.buildLevel(src, stage, this.src && this.sameData(src, stage) ? this.level : 0);
  }

  private keyOf(src: GraphSource, stage: Stage): unknown[] {
    return [src.cols, src.tree, src.vis, this.foldable, rowBudget(stage.height)];
  }

  /** Entries that must have a row of their own: the selection and the entry asked for. */
  private kept(src: GraphSource): number[] {
    return [src.selected, this.shown].filter((i) => i >= 0);
  }

  /** Whether builds made for the cached data, filter and stage still hold. */
  private sameData(src: GraphSource, stage: Stage): boolean {
    return this.keyOf(src, stage).every((v, j) => v === this.cacheKey[j]);
  }

  /** Whether build ``b`` gives every kept entry (the shown ones) a row of its own. */
  private holds(src: GraphSource, b: Built | undefined): boolean {
    return b !== undefined && this.kept(src).every((i) => !src.vis.shown[i] || hasRow(b.disp, i));
  }

  /** Level ``j`` for the selection as it is: the cached build, or that build with the
   * folds that hide a kept entry opened (only the path to it), or a new build. */
  private levelFor(src: GraphSource, stage: Stage, j: number): Built {
    const b = this.cache.get(j);
    if (b && this.holds(src, b)) return b;
    if (!b) return this.make(src, stage, j);
    const kept = this.kept(src);
    const base = b.made ?? b;
    // Past Fit the rows run past the stage anyway: an opening adds its rows.
    if (j > 0) return this.opened(src, base, kept, Infinity) ?? this.make(src, stage, j);
    // At Fit every row is on screen: the rows an opening adds are taken from the level
    // built with that many rows fewer, when the level shown has none left.
    const budget = this.budget(0, stage);
    const need = 2 * kept.filter((i) => src.vis.shown[i] && !hasRow(base.disp, i)).length;
    const from = base.folds.rows + need <= budget ? base : this.spareLevel(src, stage, need);
    return this.opened(src, from, kept, budget) ?? this.make(src, stage, 0);
  }

  /** Fit's level of detail with ``reserve`` rows fewer and nothing kept but the active
   * leaf: what a selection inside a fold opens in at Fit. Built once for this data (ahead,
   * in a task of its own, once Fit is shown). */
  private spareLevel(src: GraphSource, stage: Stage, reserve: number): Built {
    let b = this.spare.get(reserve);
    if (!b) {
      const keep = src.tree.activeLeaf >= 0 ? [src.tree.activeLeaf] : [];
      b = this.assemble(src, foldToFit(src.cols, src.tree, src.vis, Math.max(3, this.budget(0, stage) - reserve), keep));
      this.spare.set(reserve, b);
    }
    return b;
  }

  /** Build the spare level of Fit soon, outside the frame that shows Fit. */
  private spareSoon(src: GraphSource, stage: Stage): void {
    if (!this.folding || this.spare.has(2)) return;
    setTimeout(() => {
      if (this.sameData(src, stage) && this.folding && this.level === 0) this.spareLevel(src, stage, 2);
    }, 30);
  }

  /** Build level ``j`` of detail (from the cache when it was built for this data). */
  private buildLevel(src: GraphSource, stage: Stage, j: number): void {
    if (!this.sameData(src, stage)) {
      this.cache.clear();
      this.spare.clear();
      this.whole = null;
      this.cacheKey = this.keyOf(src, stage);
    }
    this.src = src;
    const b = this.levelFor(src, stage, j);
    this.cache.set(j, b);
    this.level = j;
    this.prefetch(src, stage, j + 1);
    this.disp = b.disp;
    this.layout = b.layout;
    this.scene = b.scene;
    this.folding = b.disp.folds.size > 0;
    if (j === 0) {
      this.fitK = fitLanes(this.scene, stage.height).k;
      this.whole = this.scene;
      this.spareSoon(src, stage);
    }
    this.version++;
  }

  /** Build level ``j`` into the cache in a task of its own, soon: the next zoom step
   * then finds it built instead of building it in its frame. */
  private prefetch(src: GraphSource, stage: Stage, j: number): void {
    if (!this.foldable || this.holds(src, this.cache.get(j))) return;
    // The level asked for last: a wait already under way builds it, not the one it was
    // started for (Fit after a zoom asked for level 2, then clicks at Fit for level 1).
    this.ahead = j;
    if (this.prefetching) return;
    this.prefetching = true;
    setTimeout(() => {
      this.prefetching = false;
      // Built for the selection as it is now: clicks made while this waited (a click
      // selects without building) would otherwise find the level built without their
      // row, and the next zoom step build it again in its frame.
      const now = this.src ?? src;
      const want = this.ahead;
      if (!this.sameData(now, stage) || this.holds(now, this.cache.get(want))) return;
      this.cache.set(want, this.levelFor(now, stage, want));
    }, 30);
  }


  /** Level ``j`` of detail: folds, display, layout and scene. */
  private make(src: GraphSource, stage: Stage, j: number): Built {
    const keep = [src.selected, this.shown, src.tree.activeLeaf].filter((i) => i >= 0);
    return this.assemble(src, foldToFit(src.cols, src.tree, src.vis, this.budget(j, stage), keep));
  }

  /** ``b`` with each shown entry of ``kept`` on a row of its own, the folds that hold
   * them opened around them; null when one has no fold to open or the rows pass
   * ``budget`` (the level is built again). */
  private opened(src: GraphSource, b: Built, kept: number[], budget: number): Built | null {
    let { folds, disp } = b;
    for (const i of kept) {
      if (!src.vis.shown[i] || hasRow(b.disp, i) || !folds.fold || folds.fold[i] < 0) continue;
      const next = openFold(src.cols, src.tree, src.vis, folds, i);
      if (!next) return null;
      // Only the fold that held the entry changes: the display is made from the last.
      const after = next.fold ?? new Int32Array(src.cols.n).fill(-1);
      disp = refold(disp, src.cols, src.tree, src.vis, folds.fold, after, folds.fold[i]);
      folds = next;
    }
    if (folds.rows > budget) return null;
    return { ...this.assemble(src, folds, disp), made: b };
  }
  /** The display (``disp`` when made already), layout and scene of ``folds``. */
  private assemble(src: GraphSource, folds: TreeFolds, made?: Display): Built {
    const disp = made ?? buildDisplay(src.cols, src.tree, src.vis, "tree", NONE, folds.fold);
    const layout = layoutLanes(src.cols, src.tree, disp);
    const labels = new Map<number, string>();
    for (const [h, sum] of folds.summaries) {
      const text = summaryText(sum);
      if (text) labels.set(h, text);
    }
    return { folds, disp, layout, scene: buildLaneScene(src.cols, src.tree, disp, layout, labels) };
  }

  stale(src: GraphSource, stage: Stage): boolean {
    return !this.sameData(src, stage) || (this.disp !== undefined && this.kept(src).some((i) => src.vis.shown[i] === 1 && !hasRow(this.disp, i)));
  }

  /** Fit: level 0 of detail, every row on screen. */
  fit(stage: Stage): ZoomTransform {
    if (this.src && (this.level !== 0 || this.stale(this.src, stage))) this.buildLevel(this.src, stage, 0);
    return fitLanes(this.scene, stage.height);
  }

  /** Out to the readable pitch (or Fit's scale, if less), in to 4x. */
  scaleExtent(): [number, number] {
    return [Math.min(MIN_ROW_K, this.fitK), 4];
  }

  hit(px: number, py: number, t: Transform): Hit {
    return hitLane(px, py, t, this.layout, this.disp.m);
  }

  draw(ctx: CanvasRenderingContext2D, t: Transform, stage: Stage, dpr: number, theme: Theme, marks: Marks): DrawStats {
    this.last = { t, stage };
    this.keepNeighbours(marks.selected, stage);
    const stats = drawLanes(ctx, this.scene, t, stage.width, stage.height, dpr, theme, marks);
    const window = rowWindow(this.scene, t, stage.height);
    const whole = this.overview();
    if (!window || !whole) this.minimap.hide();
    else {
      const [f0, f1] = this.overviewWindow(whole, t, stage);
      this.minimap.draw(whole, marks.hits, stage.height, dpr, f0, f1, theme);
    }
    return stats;
  }

  /** A selection made since the last build (a click on a row rebuilds nothing): the
   * levels next to the one shown that fold it away are built again ahead, so the next
   * zoom step finds its level built. */
  private keepNeighbours(selected: number, stage: Stage): void {
    const src = this.src;
    if (!src || !this.foldable || selected === src.selected || !this.sameData(src, stage)) return;
    const now = { ...src, selected };
    this.src = now;
    this.prefetch(now, stage, this.level + 1);
  }

  /** Hide the overview (another view covers the stage). */
  hideOverlay(): void {
    this.minimap.hide();
  }

  /** The whole session at Fit's level of detail: what the overview strip draws. */
  private overview(): LaneScene | null {
    if (!this.src || !this.foldable) return null;
    if (this.whole) return this.whole;
    if (!this.cache.has(0)) {
      const keep = { level: this.level, disp: this.disp, layout: this.layout, scene: this.scene, folding: this.folding };
      this.buildLevel(this.src, this.last.stage, 0);
      this.level = keep.level;
      this.disp = keep.disp;
      this.layout = keep.layout;
      this.scene = keep.scene;
      this.folding = keep.folding;
    }
    return this.cache.get(0)?.scene ?? null;
  }

  /** Fractions (top, bottom) of the overview's rows that the screen shows: the rows of
   * the entries at the screen's top and bottom, found in the overview. */
  private overviewWindow(whole: LaneScene, t: Transform, stage: Stage): [number, number] {
    const rowPx = this.layout.dy * t.k;
    const at = (y: number): number => {
      const r = Math.min(Math.max(0, Math.round((y - t.y) / rowPx)), this.disp.m - 1);
      const d = whole.disp.nodeOf[this.disp.entry[this.layout.byRow[r]]];
      return d >= 0 ? whole.layout.row[d] : 0;
    };
    const m = Math.max(whole.disp.m, 1);
    return [at(0) / m, (at(stage.height) + 1) / m];
  }

  /** Centre the part of the session at fraction ``f`` of the overview strip. */
  private jumpToFraction(f: number): void {
    const whole = this.overview();
    const d0 = whole ? nodeAtFraction(whole, f) : -1;
    if (!whole || d0 < 0) return;
    const d = this.disp.nodeOf[whole.disp.entry[d0]];
    if (d < 0) return;
    const { t, stage } = this.last;
    this.host.moveTo(new ZoomTransform(t.k, LANE_LEFT, stage.height / 2 - this.layout.y[d] * t.k));
  }

  /** Semantic zoom: a new level of detail for the new scale, the entry at the stage's
   * middle staying where it is. */
  zoomed(src: GraphSource, stage: Stage, t: ZoomTransform): ZoomTransform | null {
    return this.pace.notch((fast) => this.zoomTo(src, stage, t, fast));
  }

  private zoomTo(src: GraphSource, stage: Stage, t: ZoomTransform, fast: boolean): ZoomTransform | null {
    const j = this.levelAt(t.k);
    if (j === this.level || !this.foldable) return null;
    // Zooming fast, a level not built yet: the level shown stays, drawn at the new scale,
    // and the one asked for is built once the notches pause, outside any frame.
    if (fast && this.host.rezoom && !(this.sameData(src, stage) && this.cache.has(j))) {
      this.buildSoon(src, stage);
      return null;
    }
    return this.anchored(t, stage.height / 2, () => this.buildLevel(src, stage, j));
  }

  /** Build the level of the camera's latest scale when the zoom pauses, then show it. */
  private buildSoon(src: GraphSource, stage: Stage): void {
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      if (!this.sameData(src, stage)) return;
      const j = this.levelAt(this.last.t.k);
      if (j !== this.level && !this.holds(this.src ?? src, this.cache.get(j))) this.cache.set(j, this.levelFor(this.src ?? src, stage, j));
      this.pace.reset();
      this.host.rezoom?.();
    }, FAST_ZOOM_MS);
  }

  /** Rebuild, keeping the entry at height ``sy`` of the stage in place. */
  private anchored(t: ZoomTransform, sy: number, change: () => void, k = t.k): ZoomTransform {
    const rowPx = this.layout.dy * t.k;
    const r = Math.min(Math.max(0, Math.round((sy - t.y) / rowPx)), this.disp.m - 1);
    const entry = r >= 0 ? this.disp.entry[this.layout.byRow[r]] : -1;
    const y0 = r * rowPx + t.y;
    change();
    const d = entry >= 0 ? this.disp.nodeOf[entry] : -1;
    return d >= 0 ? new ZoomTransform(k, t.x, y0 - this.layout.y[d] * k) : new ZoomTransform(k, t.x, t.y);
  }

  /** A click on a folded row zooms in on it, step by step, until it opens (or 4x). */
  press(src: GraphSource, stage: Stage, hit: Exclude<Hit, null>, t: ZoomTransform): ZoomTransform | null {
    if (hit.type !== "node" || !this.disp.isSeg[hit.d]) return null;
    const head = this.disp.entry[hit.d];
    const sy = this.layout.y[hit.d] * t.k + t.y;
    let cur = t;
    for (let guard = 0; guard < 16 && cur.k < 4; guard++) {
      const k = Math.min(4, cur.k * LEVEL_ZOOM);
      const y = this.layout.y[this.disp.nodeOf[head]] * cur.k + cur.y;
      cur = this.anchored(cur, y, () => this.buildLevel(src, stage, this.levelAt(k)), k);
      if (!this.disp.isSeg[this.disp.nodeOf[head]] || this.disp.entry[this.disp.nodeOf[head]] !== head) break;
    }
    // the opened rows start at the stage's middle, rows above for context
    const d = this.disp.nodeOf[head];
    const y = Math.min(sy, stage.height / 2);
    return new ZoomTransform(cur.k, cur.x, y - this.layout.y[d] * cur.k);
  }

  reveal(src: GraphSource, stage: Stage, entry: number): boolean {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0 || !this.disp.isSeg[d]) return false;
    // Asked to show this entry: it keeps a row of its own. The selection does already,
    // and only the builds that fold it away are made again.
    if (entry !== src.selected) this.shown = entry;
    this.buildLevel(src, stage, this.level);
    return true;
  }

  toggle(src: GraphSource, stage: Stage, entry: number): boolean {
    return this.reveal(src, stage, entry);
  }

  frame(entry: number, stage: Stage, t: ZoomTransform, k?: number, fy = 0.5): ZoomTransform | null {
    const kk = k ?? Math.max(t.k, 1);
    // the level of detail of the new scale, the entry on a row of its own
    if (this.src && this.levelAt(kk) !== this.level) this.buildLevel(this.src, stage, this.levelAt(kk));
    if (this.src && this.disp.isSeg[nodeOfEntry(this.disp, entry)]) this.reveal(this.src, stage, entry);
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return null;
    const y = fy !== 0.5 ? stage.height * fy - this.layout.y[d] * kk : this.frameBranch(d, kk, stage).y;
    return new ZoomTransform(kk, LANE_LEFT, this.clampY(y, kk, stage.height));
  }

  /** No empty band above the first row or below the last when the rows could fill it:
   * framing a row near the session's start keeps the start at the top. */
  private clampY(y: number, k: number, height: number): number {
    const rowPx = this.layout.dy * k;
    const top = 12 + rowPx / 2;
    const bottom = height - 12 - rowPx / 2 - (this.disp.m - 1) * rowPx;
    return bottom >= top ? Math.max(Math.min(y, (top + bottom) / 2 + (bottom - top) / 2), top) : Math.min(Math.max(y, bottom), top);
  }

  /** Show a row with its branch's context. The fork (or root) the branch came from goes
   * near the top and the row near the bottom when both fit, else the row sits at three
   * quarters of the height, so rows above it (its branch) fill the stage. */
  private frameBranch(d: number, k: number, stage: Stage): { y: number } {
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
    return { y: Math.min(y, H * 0.5 - r * rowPx + H * 0.4) };
  }

  reset(): void {
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = null;
    this.shown = -1;
    this.cache.clear();
    this.spare.clear();
    this.cacheKey = [];
    this.whole = null;
  }
}

/** Whether entry ``i`` has a row of its own in ``disp`` (or nothing is selected). */
function hasRow(disp: Display, i: number): boolean {
  if (i < 0) return true;
  const d = i < disp.nodeOf.length ? disp.nodeOf[i] : -1;
  return d >= 0 && disp.entry[d] === i && !disp.isSeg[d];
}
