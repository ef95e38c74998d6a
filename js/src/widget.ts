/** One view of a session: the coordinator. It owns the state (data -> visible -> display
 * -> layout -> scene) and wires the parts, each of which returns or holds its disposer:
 * toolbar, camera (pan/zoom), hover tip, side panel, search, entry text, legend. */

import type { AnyModel } from "@anywidget/types";
import { ZoomTransform } from "d3-zoom";
import type { Camera } from "./ui/camera";
import { Requester, storeFor, type Store } from "./io/comm";
import { FILTERS, VIEWS, type FilterMode, type ViewMode } from "./model/constants";
import { idAt, indexOfId, type Columns } from "./model/data";
import { debugApi, type Timings } from "./debug";
import { el } from "./ui/dom";
import { EntryText } from "./io/entrytext";
import { Follow } from "./ui/follow";
import { visibleTree, type Visible } from "./model/filter";
import { nodeOfEntry, type GraphSource, type GraphView, type Stage } from "./ui/graphview";
import { GraphStage } from "./ui/graphstage";
import { HoverTip } from "./ui/hovertip";
import { viewKeyAction } from "./ui/keys";
import { listenPointer } from "./ui/pointer";
import { TreeView } from "./tree/view";
import { BranchesView } from "./branches/view";
import { buildLegend, toggleLegend } from "./ui/legend";
import { moveTarget } from "./ui/navigate";
import { revealHits, type PanelActions } from "./ui/panelcontent";
import type { Theme } from "./ui/canvas";
import { Search } from "./io/search";
import { SidePanel } from "./ui/panelshell";
import { Disposers, onModelChanges } from "./io/subscriptions";
import { readTheme, watchTheme } from "./ui/theme";
import { Toolbar } from "./ui/toolbar";
import { Transcript, branchPath } from "./transcript/transcript";
import { fillNodeTip } from "./ui/tipcontent";
import { buildTree, type Tree } from "./model/tree";
import { showWatchError } from "./ui/watcherror";

export type { Preview } from "./ui/tipcontent";

export interface ViewOptions {
  standalone?: boolean;
}

const asFilter = (v: unknown): FilterMode => ((FILTERS as readonly string[]).includes(String(v)) ? (v as FilterMode) : "default");
const asView = (v: unknown): ViewMode => (v === "branches" || v === "transcript" ? v : "tree");

export class SessionView {
  readonly root: HTMLDivElement;
  readonly timings: Timings = { start: 0, firstDraw: -1, firstDrawEnd: -1, firstFrame: -1, lastDraw: null, phases: {} };

  private store: Store;
  private req: Requester;
  private cols: Columns;
  private tree!: Tree;
  private vis!: Visible;
  /** The Tree (which the Transcript shares) and the Branches view; ``graph`` is the one
   * shown. */
  private treeView: TreeView;
  private branchesView = new BranchesView({ moveTo: (t) => this.gs.moveTo(t), rezoom: () => this.gs.rezoom() });
  private graph: GraphView;

  private toolbar: Toolbar;
  private canvas: HTMLCanvasElement;
  /** The camera and frames over the graph view shown. */
  private gs: GraphStage;
  private stage: HTMLDivElement;
  private legend: HTMLDivElement;
  private camera: Camera;
  private tip: HoverTip;
  private panel: SidePanel;
  private search: Search;
  private text: EntryText;
  private follow: Follow;
  private transcript: Transcript;
  private disposers = new Disposers();
  private theme: Theme | null = null;

  private filter: FilterMode;
  private view: ViewMode;
  /** Each view's own camera, so switching views never lands on an empty stage. */
  private cameras = new Map<"lanes" | "tidy", ZoomTransform>();
  private forced = -1;
  private selected = -1;
  /** Go to the first hit when the search's answer comes (Enter on a new query). */
  private jumpOnHits = false;

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
      setView: (v) => this.setModel("view", v),
      setFilter: (f) => this.setModel("filter", f),
      setSearch: (q) => this.setModel("search", q),
      confirmSearch: (q) => {
        this.jumpOnHits = true;
        this.setModel("search", q);
      },
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
    this.treeView = new TreeView({ moveTo: (t) => this.gs.moveTo(t), rezoom: () => this.gs.rezoom() });
    this.graph = this.view === "branches" ? this.branchesView : this.treeView;
    this.stage.append(this.canvas, this.tip.el, this.legend, this.follow.marker, this.treeView.overlay, this.transcript.el);
    this.panel = new SidePanel(this.req, this.panelActions(), (open) => this.onPanelToggle(open), () => this.query());
    this.disposers.add(() => this.panel.stopResize());
    main.append(this.stage, this.panel.el);
    this.root.append(this.toolbar.header, this.toolbar.bar, main);
    host.append(this.root);

    this.gs = new GraphStage(this.canvas, ctx, {
      graph: () => (this.view === "transcript" ? null : this.graph),
      source: () => this.source(),
      afterBuild: () => this.afterBuild(),
      marks: () => ({
        selected: this.selected,
        hover: this.tip.d,
        hits: this.search.hits,
        currentHit: this.search.current,
        lines: this.text.lines,
      }),
      theme: () => (this.theme ??= readTheme(this.root)),
      drawn: (stats) => {
        this.timings.lastDraw = stats;
        if (stats.missingLines?.length) this.text.fetchLines(stats.missingLines, () => this.gs.scheduleDraw());
      },
      moved: () => this.tip.hide(),
    });
    this.camera = this.gs.camera;
    this.disposers.add(() => this.gs.dispose());
    this.disposers.add(
      listenPointer(this.canvas, {
        move: (px, py) => {
          this.tip.pointer = { x: px, y: py };
          const hit = this.gs.hit(px, py);
          this.canvas.style.cursor = hit ? "pointer" : "grab";
          this.setHover(hit && hit.type === "node" ? hit.d : -1);
        },
        leave: () => {
          this.tip.pointer = null;
          this.setHover(-1);
        },
        click: (px, py) => this.onClick(px, py),
      }),
    );
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
        this.gs.scheduleDraw();
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
        disp: this.graph.disp,
        layout: this.graph.layout,
        view: this.view,
        filter: this.filter,
        selected: this.selected,
        hits: this.search.list.length,
        hitPos: this.search.pos,
        lines: this.text.lines.size,
      }),
      drawNow: () => this.drawNow(),
      select: (i) => this.select(i, {}),
      centerOn: (i, k) => this.gs.centerOn(i, k),
      fit: () => this.fit(),
      fitCold: () => {
        const t0 = performance.now();
        this.graph.reset();
        this.rebuild("display");
        this.fit();
        const t1 = performance.now();
        return { build: t1 - t0, draw: this.drawNow() };
      },
      setView: (v) => this.setModel("view", v),
      transcript: () => ({ ...this.transcript.stats() }),
    });
  }

  dispose(): void {
    this.disposers.dispose();
    this.root.remove();
  }

  // ---------------------------------------------------------------- model sync

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
    this.toolbar.showStatus(this.cols, this.tree, this.vis.count);
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
    this.fit();
  }

  private onView(): void {
    const v = asView(this.model.get("view"));
    if (v === this.view) return;
    if (this.camera.width) this.cameras.set(this.graph.kind, this.camera.transform);
    this.view = v;
    this.syncControls();
    this.rebuild("display");
    const kept = this.cameras.get(this.graph.kind);
    if (kept) this.camera.set(kept);
    else this.fit();
  }

  /** New rows arrived (watch) or the data was replaced (``reset``). */
  private onData(reset: boolean): void {
    const prevSelectedId = this.selected >= 0 ? idAt(this.cols, this.selected) : null;
    const before = this.cols.n;
    const following = !reset && this.newestInView();
    this.cols = this.store.cols;
    if (reset) {
      this.text.reset();
      this.treeView.reset();
      this.branchesView.reset();
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

  /** The newest entry (the last row read) is drawn on screen. */
  private newestInView(): boolean {
    return this.gs.onScreen(this.cols.n - 1, 0);
  }

  /** Bring the newest entry into view, keeping the zoom. */
  private showNewest(): void {
    const i = this.cols.n - 1;
    if (i < 0) return;
    this.gs.centerOn(i, this.camera.transform.k, 0.75);
    this.drawNow();
  }

  private onSelectedFromModel(): void {
    const i = indexOfId(this.cols, this.model.get("selected_id") as string | null);
    if (i === this.selected) return;
    this.select(i, { reveal: true, center: true, fromModel: true });
  }

  // ---------------------------------------------------------------- building

  /** What the views build from. */
  private source(): GraphSource {
    return { cols: this.cols, tree: this.tree, vis: this.vis, selected: this.selected };
  }

  private stageSize(): Stage {
    return { width: this.camera.width, height: this.camera.height };
  }

  /** Recompute from a level down: data -> visible -> the view's display (layout, scene). */
  private rebuild(level: "data" | "visible" | "display"): void {
    if (level === "data") this.tree = buildTree(this.cols);
    if (level === "data" || level === "visible") {
      this.vis = visibleTree(this.cols, this.tree, this.filter, this.forced >= 0 ? [this.forced] : []);
    }
    this.graph = this.view === "branches" ? this.branchesView : this.treeView;
    // The Transcript covers the stage, so it keeps the Tree's display, folded or not, as
    // it is: laying out every row unfolded for a stage nobody sees would block the page
    // for as long as the first draw did when the Transcript opens on a big session. The
    // Tree builds its display again on return when it was folded.
    const covered = level === "display" && this.view === "transcript" && this.treeView.disp !== undefined;
    this.treeView.foldable = this.view === "tree";
    if (!covered) this.graph.build(this.source(), this.stageSize());
    this.afterBuild();
  }

  /** What follows any build of the view's display: the camera's limits, the hover, the
   * Transcript, the search hits' order and the status line. */
  private afterBuild(): void {
    this.gs.limit(this.graph);
    this.tip.d = -1;
    this.root.classList.toggle("pnb-mode-transcript", this.view === "transcript");
    if (this.view === "transcript") {
      this.treeView.hideOverlay();
      this.showTranscript();
    } else if (this.transcript.shown) this.transcript.hide();
    if (this.view === "branches") this.treeView.hideOverlay();
    this.search.arrange(this.tree.order, this.vis.shown, this.selected);
    this.updateStatus();
  }

  // ---------------------------------------------------------------- view transform

  private resize(): void {
    const how = this.camera.resize(this.stage);
    if (how === "unchanged") return;
    // The stage's size decides the folds (Tree) and the boxes (Branches): rebuild only
    // when what it decides changed.
    if (this.view !== "transcript" && this.graph.stale(this.source(), this.stageSize())) this.rebuild("display");
    this.gs.limit(this.graph);
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

  fit(): void {
    this.gs.fit();
  }

  /** Fit (every view's Fit is readable: folded rows, aggregated boxes), or the
   * selection with its context when there is one. */
  private initialView(): void {
    if (this.selected >= 0) this.gs.centerOn(this.selected);
    else this.gs.fit();
  }

  goActive(): void {
    const leaf = this.tree.activeLeaf;
    if (leaf >= 0) this.select(leaf, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- drawing

  /** Draw synchronously; returns the time spent. */
  drawNow(): number {
    return this.gs.drawNow();
  }

  // ---------------------------------------------------------------- pointer

  private setHover(d: number): void {
    if (this.tip.set(d, (tip, dd) => this.fillTip(tip, dd))) this.gs.scheduleDraw();
  }

  private fillTip(tip: HTMLElement, d: number): boolean {
    const lanes = this.graph.kind === "lanes";
    return fillNodeTip(tip, this.cols, this.graph.disp, d, lanes, (i) => this.text.preview(i), () => this.tip.d === d, () => this.tip.place());
  }

  private onClick(px: number, py: number): void {
    this.root.focus({ preventScroll: true });
    const hit = this.gs.hit(px, py);
    if (!hit) return;
    const t = this.gs.via((g, src, stage) => g.press(src, stage, hit, this.camera.transform));
    if (t) {
      this.camera.set(t);
      this.drawNow();
    } else if (hit.type === "node") this.select(this.graph.disp.entry[hit.d], {});
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
    if (level) this.rebuild(level);
    // Revealed (or, in the Tree, selected inside a folded row): open what hides it.
    const folded = i >= 0 && this.view === "tree" && this.graph.disp.isSeg[nodeOfEntry(this.graph.disp, i)] === 1;
    if (i >= 0 && (o.reveal || folded) && this.view !== "transcript") this.gs.via((g, src, stage) => g.reveal(src, stage, i));
    if (!o.fromModel && prev !== i) this.setModel("selected_id", i >= 0 ? idAt(this.cols, i) : null);
    if (i >= 0 && o.center) this.gs.centerOn(i);
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
    if (nodeOfEntry(this.graph.disp, i) >= 0 && !this.gs.onScreen(i, 30)) this.gs.centerOn(i, this.camera.transform.k);
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
      if (this.jumpOnHits) {
        this.jumpOnHits = false;
        this.nextHit(1);
      }
    });
  }

  nextHit(step: number): void {
    // Enter again before the answer came: go to the first hit when it comes.
    if (this.search.pending) {
      this.jumpOnHits = true;
      return;
    }
    const i = this.search.step(step);
    if (i >= 0) this.select(i, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- keyboard

  private onKey(ev: KeyboardEvent): void {
    const action = viewKeyAction(ev, this.panel.el);
    if (action === null) return;
    ev.preventDefault();
    ev.stopPropagation();
    const disp = this.graph.disp;
    switch (action) {
      case "toggle":
        if (this.view !== "transcript" && this.gs.via((g, src, stage) => g.toggle(src, stage, this.selected))) this.drawNow();
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
