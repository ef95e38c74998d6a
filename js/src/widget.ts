/** One view of a session: the coordinator. It owns the state (data -> visible -> display
 * -> layout -> scene) and wires the parts, each of which returns or holds its disposer:
 * toolbar, camera (pan/zoom), hover tip, side panel, search, entry text, legend. */

import type { AnyModel } from "@anywidget/types";
import type { Quadtree } from "d3-quadtree";
import { ZoomTransform } from "d3-zoom";
import { Camera } from "./ui/camera";
import { Requester, storeFor, type Store } from "./io/comm";
import { FILTERS, VIEWS, type FilterMode, type ViewMode } from "./model/constants";
import { idAt, indexOfId, type Columns } from "./model/data";
import { debugApi, type Timings } from "./debug";
import { buildDisplay, type Display } from "./model/display";
import { el } from "./ui/dom";
import { EntryText } from "./io/entrytext";
import { Follow } from "./ui/follow";
import { visibleTree, type Visible } from "./model/filter";
import { hitLane, hitTest, nodeIndex, type Hit } from "./ui/pointerhit";
import { HoverTip } from "./ui/hovertip";
import { keyAction } from "./ui/keys";
import { chooseAggregates, columnCapacity } from "./branches/aggregate";
import { foldRuns } from "./tree/fold";
import { LANE_SPACING, layoutLanes } from "./tree/lanes";
import { buildLaneScene, type LaneScene } from "./tree/lanescene";
import { LANE_LEFT, drawLanes } from "./tree/lanesdraw";
import { SPACING, layoutDisplay, type Layout } from "./branches/layout";
import { buildLegend, toggleLegend } from "./ui/legend";
import { FALLBACK_BRANCH_K, MIN_ROW_K, fitTransform, nodeAtFraction, nodeOfEntry, rowWindow } from "./ui/framing";
import { Minimap } from "./tree/minimap";
import { moveTarget } from "./ui/navigate";
import { revealHits, type PanelActions } from "./ui/panelcontent";
import { BRANCH_MIN_K, SEG_W, draw, type Scene } from "./branches/draw";
import type { Theme } from "./ui/canvas";
import { buildScene } from "./branches/scene";
import { Search } from "./io/search";
import { SidePanel } from "./ui/panelshell";
import { Disposers, onModelChanges } from "./io/subscriptions";
import { readTheme, watchTheme } from "./ui/theme";
import { Toolbar } from "./ui/toolbar";
import { Transcript, branchPath } from "./transcript/transcript";
import { fillEntryTip, fillSegmentTip } from "./ui/tipcontent";
import { buildTree, type Tree } from "./model/tree";
import { showWatchError } from "./ui/watcherror";

export type { Preview } from "./ui/tipcontent";

export interface ViewOptions {
  standalone?: boolean;
}

const asFilter = (v: unknown): FilterMode => ((FILTERS as readonly string[]).includes(String(v)) ? (v as FilterMode) : "default");
const asView = (v: unknown): ViewMode => (v === "branches" || v === "transcript" ? v : "tree");

/** Zooming the Tree in to this scale unfolds the folded rows on screen. */
const UNFOLD_K = 1.25;
/** Zooming the Tree back out past this scale folds them again. */
const REFOLD_K = 0.9;
/** Branches: the scale the view opens at (or larger), for which subtrees are aggregated
 * to fit the stage's width. */
const OPEN_BRANCH_K = FALLBACK_BRANCH_K;

export class SessionView {
  readonly root: HTMLDivElement;
  readonly timings: Timings = { start: 0, firstDraw: -1, firstDrawEnd: -1, firstFrame: -1, lastDraw: null, phases: {} };

  private store: Store;
  private req: Requester;
  private cols: Columns;
  private tree!: Tree;
  private vis!: Visible;
  private disp!: Display;
  private layout!: Layout;
  private scene!: Scene | LaneScene;
  private index: Quadtree<number> | null = null;

  private toolbar: Toolbar;
  private canvas: HTMLCanvasElement;
  private ctx: CanvasRenderingContext2D;
  private stage: HTMLDivElement;
  private legend: HTMLDivElement;
  private camera: Camera;
  private tip: HoverTip;
  private panel: SidePanel;
  private search: Search;
  private text: EntryText;
  private follow: Follow;
  private transcript: Transcript;
  private minimap: Minimap;
  private disposers = new Disposers();
  private frame = 0;
  private viewTimer: ReturnType<typeof setTimeout> | null = null;
  private theme: Theme | null = null;

  private filter: FilterMode;
  private view: ViewMode;
  private expanded = new Set<number>();
  /** Tree view: whether runs fold (the rows would not fit the stage readably), and the
   * runs the reader opened (by first entry). */
  private folding = false;
  private unfolded = new Set<number>();
  /** Each view's own camera, so switching views never lands on an empty stage. */
  private cameras = new Map<"lanes" | "tidy", ZoomTransform>();
  /** The scale before the latest camera change (a zoom, not a pan, moves it). */
  private lastK = 1;
  /** Branches: subtrees the reader opened (they are never drawn as one box again). */
  private opened = new Set<number>();
  private builtCapacity = -1;
  private forced = -1;
  private selected = -1;

  constructor(
    private model: AnyModel,
    host: HTMLElement,
    opts: ViewOptions = {},
  ) {
    this.timings.start = performance.now();
    this.store = storeFor(model);
    this.req = new Requester(model);
    this.disposers.add(() => this.req.dispose());
    this.cols = this.store.cols;
    this.filter = asFilter(model.get("filter"));
    this.view = asView(model.get("view"));
    this.text = new EntryText(this.req);

    this.root = el("div", `pnb-root${opts.standalone ? " pnb-standalone" : ""}`);
    this.root.tabIndex = 0;
    // Keys pressed in the widget are its own, not JupyterLab's notebook shortcuts.
    this.root.setAttribute("data-lm-suppress-shortcuts", "true");
    const h = Number(model.get("height"));
    if (!opts.standalone && Number.isFinite(h) && h > 120) this.root.style.height = `${h}px`;

    this.toolbar = new Toolbar({
      setView: (v) => this.setViewSoon(v),
      setFilter: (f) => this.setModel("filter", f),
      setSearch: (q) => this.setModel("search", q),
      stepHit: (step) => this.nextHit(step),
      currentSearch: () => String(this.model.get("search") ?? ""),
      fit: () => this.fit(),
      goActive: () => this.goActive(),
      toggleLegend: () => toggleLegend(this.legend),
      leaveSearch: () => this.root.focus(),
      showProblems: () => this.showProblems(),
    });
    this.disposers.add(() => this.toolbar.dispose());
    this.disposers.add(showWatchError(model, this.toolbar.status));
    this.search = new Search(this.req, this.toolbar.searchCount);

    const main = el("div", "pnb-main");
    this.stage = el("div", "pnb-stage");
    this.canvas = el("canvas", "pnb-canvas");
    this.canvas.setAttribute("aria-label", "Session tree");
    const ctx = this.canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("canvas 2d not available");
    this.ctx = ctx;
    this.tip = new HoverTip(() => this.camera);
    this.legend = el("div", "pnb-legend");
    buildLegend(this.legend);
    this.follow = new Follow(() => this.showNewest());
    this.transcript = new Transcript(this.req, this.panelActions(), {
      line: (i) => this.text.lines.get(i),
      needLines: (indices, ready) => this.text.fetchLines(indices, ready),
      select: (i) => this.select(i, {}),
      query: () => this.query(),
    });
    this.disposers.add(() => this.transcript.dispose());
    this.minimap = new Minimap((f) => this.jumpToFraction(f));
    this.stage.append(this.canvas, this.tip.el, this.legend, this.follow.marker, this.minimap.el, this.transcript.el);
    this.panel = new SidePanel(this.req, this.panelActions(), (open) => this.onPanelToggle(open), () => this.query());
    this.disposers.add(() => this.panel.stopResize());
    main.append(this.stage, this.panel.el);
    this.root.append(this.toolbar.header, this.toolbar.bar, main);
    host.append(this.root);

    this.camera = new Camera(this.canvas, (user) => {
      this.tip.hide();
      if (user) this.onUserZoom();
      this.lastK = this.camera.transform.k;
      this.scheduleDraw();
    });
    this.disposers.add(() => this.camera.dispose());
    this.disposers.add(this.listenPointer());
    const onKey = (ev: KeyboardEvent): void => this.onKey(ev);
    this.root.addEventListener("keydown", onKey);
    this.disposers.add(() => this.root.removeEventListener("keydown", onKey));
    const ro = new ResizeObserver(() => this.resize());
    ro.observe(this.stage);
    this.disposers.add(() => ro.disconnect());

    this.disposers.add(
      onModelChanges(model, {
        filter: () => this.onFilter(),
        view: () => this.onView(),
        search: () => this.onSearch(),
        selected_id: () => this.onSelectedFromModel(),
      }),
    );
    this.disposers.add(this.store.subscribe((reset) => this.onData(reset)));
    this.disposers.add(
      watchTheme(() => {
        this.theme = null;
        this.scheduleDraw();
      }),
    );

    this.timings.phases.dom = performance.now() - this.timings.start;
    this.rebuild("data");
    this.timings.phases.build = performance.now() - this.timings.start;
    this.syncControls();
    const sel = indexOfId(this.cols, model.get("selected_id") as string | null);
    if (sel >= 0) this.select(sel, { reveal: true, fromModel: true });
    this.resize();
    if (String(model.get("search") ?? "")) this.onSearch();
    (this.root as unknown as { pnbDebug: unknown }).pnbDebug = debugApi({
      timings: this.timings,
      model,
      canvas: this.canvas,
      camera: this.camera,
      state: () => ({
        cols: this.cols,
        vis: this.vis,
        disp: this.disp,
        layout: this.layout,
        view: this.view,
        filter: this.filter,
        selected: this.selected,
        hits: this.search.list.length,
        hitPos: this.search.pos,
        lines: this.text.lines.size,
      }),
      drawNow: () => this.drawNow(),
      select: (i) => this.select(i, {}),
      centerOn: (i, k) => this.centerOn(i, k),
      fit: () => this.fit(),
      setView: (v) => this.setModel("view", v),
      transcript: () => ({ ...this.transcript.stats() }),
    });
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    if (this.viewTimer) clearTimeout(this.viewTimer);
    this.disposers.dispose();
    this.root.remove();
  }

  // ---------------------------------------------------------------- model sync

  /** A view button was clicked. The Transcript opens in the next task: the click is
   * dispatched in the same task as the host's own handling of the press (in JupyterLab
   * the notebook makes the output's cell active), so building the
   * Transcript there too blocked one frame with both; in a task of its own each blocks
   * less. The other views switch at once, and a click on one of them wins over a
   * Transcript not opened yet. */
  private setViewSoon(v: ViewMode): void {
    if (this.viewTimer) clearTimeout(this.viewTimer);
    this.viewTimer = null;
    if (v !== "transcript") {
      this.setModel("view", v);
      return;
    }
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null;
      this.setModel("view", v);
    }, 0);
  }

  private setModel(name: string, value: unknown): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  private syncControls(): void {
    this.toolbar.sync({
      name: this.cols.name,
      cwd: this.cols.cwd,
      view: this.view,
      filter: this.filter,
      search: String(this.model.get("search") ?? ""),
    });
    this.updateStatus();
  }

  private updateStatus(): void {
    let leaves = 0;
    for (let i = 0; i < this.tree.n; i++) if (this.tree.childStart[i + 1] === this.tree.childStart[i]) leaves++;
    const c = this.cols.compactions.length;
    const parts = [
      `${this.cols.n.toLocaleString("en-US")} entries`,
      `${this.vis.count.toLocaleString("en-US")} shown`,
      `${leaves.toLocaleString("en-US")} ${leaves === 1 ? "leaf" : "leaves"}`,
    ];
    if (c) parts.push(`${c} compaction${c > 1 ? "s" : ""}`);
    this.toolbar.status.textContent = parts.join(" · ");
    this.toolbar.showProblemCount(this.cols.problemCount);
  }

  private showProblems(): void {
    this.panel.showProblems(this.cols.problems, this.cols.problemCount, (row) => this.select(row, { reveal: true, center: true, keepPanel: true }));
  }

  private onFilter(): void {
    const f = asFilter(this.model.get("filter"));
    if (f === this.filter) return;
    this.filter = f;
    this.syncControls();
    this.rebuild("visible");
    this.recenter();
  }

  private onView(): void {
    const v = asView(this.model.get("view"));
    if (v === this.view) return;
    if (this.camera.width) this.cameras.set(this.scene.kind, this.camera.transform);
    this.view = v;
    this.syncControls();
    this.rebuild("display");
    const kept = this.cameras.get(this.scene.kind);
    if (kept) this.camera.set(kept);
    else this.recenter();
  }

  /** New rows arrived (watch) or the data was replaced (``reset``). */
  private onData(reset: boolean): void {
    const prevSelectedId = this.selected >= 0 ? idAt(this.cols, this.selected) : null;
    const before = this.cols.n;
    const following = !reset && this.newestInView();
    this.cols = this.store.cols;
    if (reset) {
      this.text.reset();
      this.expanded.clear();
      this.unfolded.clear();
      this.opened.clear();
      this.forced = -1;
      this.selected = indexOfId(this.cols, prevSelectedId);
    } else this.text.grew();
    this.rebuild("data");
    this.syncControls();
    if (String(this.model.get("search") ?? "")) this.onSearch();
    if (reset) {
      this.follow.clear();
      this.initialView();
    } else this.follow.appended(this.cols.n - before, following);
    this.drawNow();
  }

  /** The overview strip, when the tree view does not show every row at once. */
  private drawMinimap(): void {
    const { transform: t, height, dpr } = this.camera;
    const window = this.view === "tree" ? rowWindow(this.scene, t, height) : null;
    if (!window || this.scene.kind !== "lanes") {
      this.minimap.hide();
      return;
    }
    const theme = this.theme ?? readTheme(this.root);
    this.minimap.draw(this.scene, this.search.hits, height, dpr, window[0], window[1], theme.bg, theme.fg);
  }

  /** Centre the row at fraction ``f`` of the session (the overview strip). */
  private jumpToFraction(f: number): void {
    const d = nodeAtFraction(this.scene, f);
    if (d < 0) return;
    this.camera.lookAt(this.layout.x[d], this.layout.y[d], this.camera.transform.k, 0.5, 0.5);
    this.drawNow();
  }

  /** The newest entry (the last row read) is drawn on screen. */
  private newestInView(): boolean {
    const d = nodeOfEntry(this.disp, this.cols.n - 1);
    if (d < 0) return false;
    return this.camera.inView(...this.camera.toScreen(this.layout.x[d], this.layout.y[d]));
  }

  /** Bring the newest entry into view, keeping the zoom. */
  private showNewest(): void {
    const i = this.cols.n - 1;
    if (i < 0) return;
    this.centerOn(i, this.camera.transform.k, 0.75);
    this.drawNow();
  }

  private onSelectedFromModel(): void {
    const i = indexOfId(this.cols, this.model.get("selected_id") as string | null);
    if (i === this.selected) return;
    this.select(i, { reveal: true, center: true, fromModel: true });
  }

  // ---------------------------------------------------------------- building

  /** Recompute from a level down: data -> visible -> display (layout, scene). */
  private rebuild(level: "data" | "visible" | "display"): void {
    if (level === "data") this.tree = buildTree(this.cols);
    if (level === "data" || level === "visible") {
      this.vis = visibleTree(this.cols, this.tree, this.filter, this.forced >= 0 ? [this.forced] : []);
    }
    // The Tree and the Transcript share one display (every shown entry a row) while the
    // Tree is not folded: going from one to the other with the same data and filter keeps
    // it rather than laying out a whole session again.
    const wasFolded = this.folding;
    // The Transcript covers the stage, so it keeps the Tree's display, folded or not, as
    // it is: laying out every row unfolded for a stage nobody sees would block the page
    // for as long as the first draw did when the Transcript opens on a big session. The
    // Tree builds its display again on return when it was folded, as it did before.
    const covered = level === "display" && this.view === "transcript" && this.scene?.kind === "lanes";
    if (!covered) this.folding = this.wouldFold();
    const keep =
      covered ||
      (level === "display" && this.view !== "branches" && this.scene?.kind === "lanes" && !this.folding && !wasFolded);
    if (!keep) {
      const fold = this.folding ? foldRuns(this.cols, this.tree, this.vis, { keep: this.selected >= 0 ? [this.selected] : [], unfolded: this.unfolded }) : null;
      this.disp = buildDisplay(this.cols, this.tree, this.vis, this.view, this.expanded, fold);
      if (this.view === "branches") {
        // Side subtrees that would not fit across the stage readably become one box each.
        const capacity = this.capacity();
        this.builtCapacity = capacity;
        const agg = chooseAggregates(this.disp, this.tree, capacity, this.opened);
        if (agg.size) this.disp = buildDisplay(this.cols, this.tree, this.vis, this.view, this.expanded, null, agg);
      }
    }
    if (!keep && this.view !== "branches") {
      const lanes = layoutLanes(this.cols, this.tree, this.disp);
      this.layout = lanes;
      this.scene = buildLaneScene(this.cols, this.tree, this.disp, lanes);
      this.camera.fixedX = LANE_LEFT;
      this.camera.rowsHeight = lanes.maxY + lanes.dy;
    } else if (!keep) {
      const sp = SPACING.branches;
      const onActive = this.tree.onActive;
      const entry = this.disp.entry;
      this.layout = layoutDisplay(this.disp, sp.dx, sp.dy, (d) => onActive[entry[d]] === 1);
      this.scene = buildScene(this.cols, this.tree, this.disp, this.layout, "branches");
      this.camera.fixedX = null;
    }
    this.index = null;
    this.tip.d = -1;
    this.root.classList.toggle("pnb-mode-transcript", this.view === "transcript");
    if (this.view === "transcript") this.showTranscript();
    else if (this.transcript.shown) this.transcript.hide();
    this.search.arrange(this.tree.order, this.vis.shown, this.selected);
    this.setMinScale();
    this.updateStatus();
  }

  /** Tree: whether every row would not fit the stage at the readable pitch. */
  private wouldFold(): boolean {
    return this.view === "tree" && this.vis.count * LANE_SPACING.dy * MIN_ROW_K > Math.max(this.camera.height || 600, 50) - 24;
  }

  /** Branches: how many columns of boxes fit across the stage at the opening scale. */
  private capacity(): number {
    return columnCapacity(this.camera.width || 1000, OPEN_BRANCH_K, SPACING.branches.dx, SEG_W);
  }

  /** The least scale the reader may zoom out to: Tree rows keep their text (runs fold
   * instead of shrinking); Branches as the view's own readable floor. */
  private setMinScale(): void {
    this.camera.setMinScale(this.scene.kind === "lanes" ? MIN_ROW_K : BRANCH_MIN_K);
  }

  /** Zooming the Tree in unfolds the folded rows on screen; zooming back out folds
   * every run again. The entry in the middle of the stage stays where it is. */
  private onUserZoom(): void {
    const k = this.camera.transform.k;
    const before = this.lastK;
    if (this.scene.kind === "tidy") {
      if (k > before && k >= UNFOLD_K && this.disp.aggregates.size) this.openAggregatesInView();
      return;
    }
    if (!this.folding) return;
    if (k > before && k >= UNFOLD_K) {
      const L = this.scene.layout;
      const rowPx = L.dy * k;
      const t = this.camera.transform;
      const r0 = Math.max(0, Math.floor(-t.y / rowPx));
      const r1 = Math.min(this.disp.m - 1, Math.ceil((this.camera.height - t.y) / rowPx));
      const open: number[] = [];
      for (let r = r0; r <= r1; r++) {
        const d = L.byRow[r];
        if (this.disp.isSeg[d]) open.push(this.disp.entry[d]);
      }
      if (open.length) this.anchored(() => open.forEach((h) => this.unfolded.add(h)));
    } else if (k < before && before >= REFOLD_K && k < REFOLD_K && this.unfolded.size) {
      this.anchored(() => this.unfolded.clear());
    }
  }

  /** Branches: open every subtree box on screen, the one nearest the middle staying put. */
  private openAggregatesInView(): void {
    const t = this.camera.transform;
    let best = -1;
    let bestDist = Infinity;
    const open: number[] = [];
    for (const h of this.disp.aggregates.keys()) {
      const d = this.disp.nodeOf[h];
      const [px, py] = this.camera.toScreen(this.layout.x[d], this.layout.y[d]);
      if (!this.camera.inView(px, py)) continue;
      open.push(h);
      const dist = Math.hypot(px - this.camera.width / 2, py - this.camera.height / 2);
      if (dist < bestDist) {
        bestDist = dist;
        best = h;
      }
    }
    if (best < 0) return;
    const d0 = this.disp.nodeOf[best];
    const [sx, sy] = this.camera.toScreen(this.layout.x[d0], this.layout.y[d0]);
    open.forEach((h) => this.opened.add(h));
    this.rebuild("display");
    const d = this.disp.nodeOf[best];
    this.camera.set(new ZoomTransform(t.k, sx - this.layout.x[d] * t.k, sy - this.layout.y[d] * t.k));
  }

  /** Change the folds and rebuild, keeping the entry at the stage's middle in place. */
  private anchored(change: () => void): void {
    const t = this.camera.transform;
    const L = this.layout;
    const rowPx = L.dy * t.k;
    const r = Math.min(Math.max(0, Math.round((this.camera.height / 2 - t.y) / rowPx)), this.disp.m - 1);
    const entry = r >= 0 && this.scene.kind === "lanes" ? this.disp.entry[this.scene.layout.byRow[r]] : -1;
    const sy = r * rowPx + t.y;
    change();
    this.rebuild("display");
    const d = entry >= 0 ? this.disp.nodeOf[entry] : -1;
    if (d >= 0) this.camera.set(new ZoomTransform(t.k, t.x, sy - this.layout.y[d] * t.k));
  }

  // ---------------------------------------------------------------- view transform

  private resize(): void {
    const how = this.camera.resize(this.stage);
    if (how === "unchanged") return;
    // The stage's size decides the folds (Tree) and the boxes (Branches): rebuild only
    // when what it decides changed.
    const capacityWas = this.builtCapacity;
    if (this.wouldFold() !== this.folding || (this.view === "branches" && this.capacity() !== capacityWas)) this.rebuild("display");
    this.setMinScale();
    if (how === "resized") {
      this.drawNow();
      return;
    }
    this.timings.phases.sized = performance.now() - this.timings.start;
    this.initialView();
    this.drawNow();
    this.timings.firstDrawEnd = performance.now();
    this.timings.firstDraw = this.timings.firstDrawEnd - this.timings.start;
    this.root.dataset.drawn = "1";
    requestAnimationFrame(() => {
      this.timings.firstFrame = performance.now() - this.timings.start;
    });
  }

  private fitTransform(): ZoomTransform {
    return fitTransform(this.scene, this.layout, this.camera.width, this.camera.height);
  }

  fit(): void {
    this.camera.set(this.fitTransform());
  }

  /** Fit (every view's Fit is readable: folded rows, aggregated boxes), or the
   * selection with its context when there is one. */
  private initialView(): void {
    if (this.selected >= 0) this.centerOn(this.selected);
    else this.camera.set(this.fitTransform());
  }

  /** Put an entry's node at height ``fy`` of the stage (fraction; default the middle). */
  private centerOn(entry: number, k?: number, fy = 0.5): void {
    let d = nodeOfEntry(this.disp, entry);
    if (d < 0) return;
    if (this.scene.kind === "lanes" && this.disp.folds.has(this.disp.entry[d])) {
      // Asked to show this entry: open the folded row it is in.
      this.unfolded.add(this.disp.entry[d]);
      this.rebuild("display");
      d = nodeOfEntry(this.disp, entry);
    }
    const least = this.scene.kind === "lanes" ? 1 : OPEN_BRANCH_K;
    if (this.scene.kind === "lanes" && fy === 0.5) {
      this.frameBranch(d, k ?? Math.max(this.camera.transform.k, least));
      return;
    }
    this.camera.lookAt(this.layout.x[d], this.layout.y[d], k ?? Math.max(this.camera.transform.k, least), 0.5, fy);
  }

  /** Tree: show a row with its branch's context. The fork (or root) the branch came from
   * goes near the top and the row near the bottom when both fit, else the row sits at
   * three quarters of the height, so rows above it (its branch) fill the stage. */
  private frameBranch(d: number, k: number): void {
    if (this.scene.kind !== "lanes") return;
    const L = this.scene.layout;
    const disp = this.disp;
    let f = disp.dparent[d];
    while (f >= 0 && disp.childStart[f + 1] - disp.childStart[f] < 2) f = disp.dparent[f];
    const H = this.camera.height;
    const rowPx = L.dy * k;
    const r = L.row[d];
    const rf = f >= 0 ? L.row[f] : 0;
    const y =
      (r - rf + 2) * rowPx <= H * 0.9
        ? Math.max(H * 0.05 + rowPx - rf * rowPx, H - rowPx * 1.5 - r * rowPx)
        : H * 0.75 - r * rowPx;
    this.camera.set(new ZoomTransform(k, this.camera.transform.x, Math.min(y, H * 0.5 - r * rowPx + H * 0.4)));
  }

  private recenter(): void {
    this.camera.set(this.fitTransform());
  }

  goActive(): void {
    const leaf = this.tree.activeLeaf;
    if (leaf >= 0) this.select(leaf, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- drawing

  private scheduleDraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawNow();
    });
  }

  /** Draw synchronously; returns the time spent. */
  drawNow(): number {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    // The Transcript covers the stage: drawing the tree under it would only cost time (a
    // whole session's rows) and ask the kernel for node lines nobody sees.
    if (this.view === "transcript") return 0;
    this.theme ??= readTheme(this.root);
    const { transform, width, height, dpr } = this.camera;
    const marks = {
      selected: this.selected,
      hover: this.tip.d,
      hits: this.search.hits,
      currentHit: this.search.current,
      lines: this.text.lines,
    };
    const stats =
      this.scene.kind === "lanes"
        ? drawLanes(this.ctx, this.scene, transform, width, height, dpr, this.theme, marks)
        : draw(this.ctx, this.scene, transform, width, height, dpr, this.theme, marks);
    this.timings.lastDraw = stats;
    this.drawMinimap();
    if (stats.missingLines && stats.missingLines.length) this.text.fetchLines(stats.missingLines, () => this.scheduleDraw());
    return stats.ms;
  }

  // ---------------------------------------------------------------- pointer

  private listenPointer(): () => void {
    const local = (ev: MouseEvent): [number, number] => {
      const r = this.canvas.getBoundingClientRect();
      return [ev.clientX - r.left, ev.clientY - r.top];
    };
    const move = (ev: MouseEvent): void => {
      const [px, py] = local(ev);
      this.tip.pointer = { x: px, y: py };
      const hit = this.hitTest(px, py);
      this.canvas.style.cursor = hit ? "pointer" : "grab";
      this.setHover(hit && hit.type === "node" ? hit.d : -1);
    };
    const leave = (): void => {
      this.tip.pointer = null;
      this.setHover(-1);
    };
    const click = (ev: MouseEvent): void => this.onClick(...local(ev));
    this.canvas.addEventListener("mousemove", move);
    this.canvas.addEventListener("mouseleave", leave);
    this.canvas.addEventListener("click", click);
    return () => {
      this.canvas.removeEventListener("mousemove", move);
      this.canvas.removeEventListener("mouseleave", leave);
      this.canvas.removeEventListener("click", click);
    };
  }

  /** The thing under a point (canvas coordinates). */
  hitTest(px: number, py: number): Hit {
    if (this.scene.kind === "lanes") return hitLane(px, py, this.camera.transform, this.scene.layout, this.disp.m);
    return hitTest(px, py, this.camera.transform, this.view, this.disp, this.layout, this.cols.kind, () => {
      this.index ??= nodeIndex(this.layout, this.disp.m);
      return this.index;
    }, this.scene.kind === "tidy" ? this.scene.boxHalf : undefined);
  }

  private setHover(d: number): void {
    if (this.tip.set(d, (tip, dd) => this.fillTip(tip, dd))) this.scheduleDraw();
  }

  private fillTip(tip: HTMLElement, d: number): boolean {
    const i = this.disp.entry[d];
    if (this.disp.aggregates.has(i)) return false;
    if (this.disp.isSeg[d]) {
      const s = this.scene.kind === "lanes" ? this.disp.folds.get(i) : this.disp.segments.get(i);
      if (s) fillSegmentTip(tip, s);
      return Boolean(s);
    }
    const cols = this.cols;
    fillEntryTip(
      tip,
      { kind: cols.kind[i], label: cols.labels.get(i), tokens: cols.tokens[i], error: Boolean(cols.flags[i] & 1) },
      this.text.preview(i),
      () => this.tip.d === d,
      () => this.tip.place(),
    );
    return true;
  }

  private onClick(px: number, py: number): void {
    this.root.focus({ preventScroll: true });
    const hit = this.hitTest(px, py);
    if (!hit) return;
    if (hit.type === "badge") {
      this.expanded.delete(hit.head);
      this.rebuild("display");
      this.drawNow();
    } else if (this.disp.isSeg[hit.d]) this.toggleSegment(this.disp.entry[hit.d]);
    else this.select(this.disp.entry[hit.d], {});
  }

  private toggleSegment(head: number): void {
    if (this.scene.kind === "lanes" || this.disp.aggregates.has(head)) {
      (this.scene.kind === "lanes" ? this.unfolded : this.opened).add(head);
      this.rebuild("display");
      this.drawNow();
      return;
    }
    if (this.expanded.has(head)) this.expanded.delete(head);
    else this.expanded.add(head);
    this.rebuild("display");
    this.drawNow();
  }

  // ---------------------------------------------------------------- selection and panel

  /** Select an entry (-1 clears). reveal: show it even if filtered or collapsed. */
  select(i: number, o: { reveal?: boolean; center?: boolean; fromModel?: boolean; keepPanel?: boolean }): void {
    const prev = this.selected;
    this.selected = i;
    let level: "visible" | null = null;
    if (this.forced >= 0 && this.forced !== i) {
      this.forced = -1;
      level = "visible";
    }
    if (i >= 0 && o.reveal && !this.vis.shown[i]) {
      this.forced = i;
      level = "visible";
    }
    // (a folded run opens for its selected entry in the Tree, which builds its display
    // again on return from the Transcript anyway)
    if (i >= 0 && !level && this.folding && this.view !== "transcript" && this.disp.nodeOf[i] >= 0 && this.disp.isSeg[this.disp.nodeOf[i]]) level = "visible";
    if (level) this.rebuild(level);
    for (let guard = 0; i >= 0 && o.reveal && this.view === "branches" && guard < 64; guard++) {
      const d = this.disp.nodeOf[i];
      const h = d >= 0 ? this.disp.entry[d] : -1;
      if (!this.disp.aggregates.has(h)) break;
      this.opened.add(h);
      this.rebuild("display");
    }
    if (i >= 0 && o.reveal && this.view === "branches") {
      const d = this.disp.nodeOf[i];
      if (d >= 0 && this.disp.isSeg[d]) {
        this.expanded.add(this.disp.segOf[i]);
        this.rebuild("display");
      }
    }
    if (!o.fromModel && prev !== i) this.setModel("selected_id", i >= 0 ? idAt(this.cols, i) : null);
    if (i >= 0 && o.center) this.centerOn(i);
    if (i >= 0 && !o.center) this.ensureInView(i);
    if (this.view === "transcript") {
      if (i >= 0 && !this.transcript.has(i)) this.showTranscript();
      this.transcript.focus(i);
    } else if (!o.keepPanel) this.showPanel(i);
    this.drawNow();
  }

  /** The selected branch (or the active path) as a transcript. */
  private showTranscript(): void {
    const path = branchPath(this.tree, this.selected);
    const grew = this.transcript.show(path, this.cols, (i) => this.vis.shown[i] === 1, this.selected);
    this.panel.hideEntry();
    if (!grew && this.selected >= 0) this.transcript.focus(this.selected);
  }

  private showPanel(i: number): void {
    if (i < 0) this.panel.hide();
    else this.panel.showEntry(i, idAt(this.cols, i), this.tree.childStart[i + 1] === this.tree.childStart[i]);
  }

  private ensureInView(i: number): void {
    const d = this.disp.nodeOf[i];
    if (d < 0) return;
    const [px, py] = this.camera.toScreen(this.layout.x[d], this.layout.y[d]);
    if (!this.camera.inView(px, py, 30)) this.centerOn(i, this.camera.transform.k);
  }

  private onPanelToggle(open: boolean): void {
    this.root.classList.toggle("pnb-has-panel", open);
    if (!open) return;
    requestAnimationFrame(() => this.resize());
  }

  private panelActions(): PanelActions {
    return {
      selectId: (id) => {
        const j = indexOfId(this.cols, id);
        if (j >= 0) this.select(j, { reveal: true, center: true });
      },
      selectIndex: (j) => {
        if (j >= 0 && j < this.cols.n) this.select(j, { reveal: true, center: true });
      },
      showContext: (j) => this.panel.showContext(j, () => this.showPanel(this.selected)),
      close: () => this.select(-1, {}),
    };
  }

  // ---------------------------------------------------------------- search

  /** The search in force (trimmed; "" when none). */
  private query(): string {
    return String(this.model.get("search") ?? "").trim();
  }

  private onSearch(): void {
    const q = this.query();
    this.syncControls();
    this.search.run(q, this.cols.n, () => {
      this.search.arrange(this.tree.order, this.vis.shown, this.selected);
      revealHits(this.panel.el, q);
      revealHits(this.transcript.el, q);
      this.drawNow();
    });
  }

  nextHit(step: number): void {
    const i = this.search.step(step);
    if (i >= 0) this.select(i, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- keyboard

  private onKey(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (this.panel.el.contains(target) && ev.key !== "Escape") return;
    const action = keyAction(ev.key);
    if (action === null) return;
    ev.preventDefault();
    ev.stopPropagation();
    const disp = this.disp;
    switch (action) {
      case "toggle":
        if (this.selected >= 0 && disp.nodeOf[this.selected] >= 0 && this.view === "branches") {
          const head = disp.segOf[this.selected];
          const s = disp.segments.get(head);
          if (s && s.size > 1) this.toggleSegment(head);
        }
        break;
      case "activeLeaf":
        this.goActive();
        break;
      case "fit":
        this.fit();
        break;
      case "toggleView":
        this.setModel("view", VIEWS[(VIEWS.indexOf(this.view) + 1) % VIEWS.length]);
        break;
      case "search":
        this.toolbar.searchInput.focus();
        break;
      case "nextHit":
      case "previousHit":
        this.nextHit(action === "nextHit" ? 1 : -1);
        break;
      case "deselect":
        this.select(-1, {});
        this.root.focus();
        break;
      default: {
        const cur = this.selected >= 0 ? disp.nodeOf[this.selected] : -1;
        const d = moveTarget(action, disp, cur, this.tree.onActive, disp.nodeOf[this.tree.activeLeaf] ?? -1);
        if (d >= 0 && d < disp.m) this.select(disp.entry[d], {});
      }
    }
  }
}
