/** One view of a session: the coordinator. It owns the state (data -> visible -> display
 * -> layout -> scene) and wires the parts, each of which returns or holds its disposer:
 * toolbar, camera (pan/zoom), hover tip, side panel, search, entry text, legend. */

import type { AnyModel } from "@anywidget/types";
import type { Quadtree } from "d3-quadtree";
import type { ZoomTransform } from "d3-zoom";
import { Camera } from "./camera";
import { Requester, storeFor, type Store } from "./comm";
import { FILTERS, VIEWS, type FilterMode, type ViewMode } from "./constants";
import { idAt, indexOfId, type Columns } from "./data";
import { debugApi, type Timings } from "./debug";
import { buildDisplay, type Display } from "./display";
import { el } from "./dom";
import { EntryText } from "./entrytext";
import { Follow } from "./follow";
import { visibleTree, type Visible } from "./filter";
import { hitLane, hitTest, nodeIndex, type Hit } from "./hittest";
import { HoverTip } from "./hovertip";
import { keyAction } from "./keys";
import { layoutLanes } from "./lanes";
import { buildLaneScene, type LaneScene } from "./lanescene";
import { LANE_LEFT, drawLanes } from "./lanesdraw";
import { SPACING, layoutDisplay, type Layout } from "./layout";
import { buildLegend, toggleLegend } from "./legend";
import { READABLE_FIT, fitTransform, nodeAtFraction, nodeOfEntry, rowWindow } from "./framing";
import { Minimap } from "./minimap";
import { moveTarget } from "./navigate";
import { revealHits, type PanelActions } from "./panel";
import { draw, type Scene, type Theme } from "./render";
import { buildScene } from "./scene";
import { Search } from "./search";
import { SidePanel } from "./sidepanel";
import { Disposers, onModelChanges } from "./subscriptions";
import { readTheme, watchTheme } from "./theme";
import { Toolbar } from "./toolbar";
import { Transcript, branchPath } from "./transcript";
import { fillEntryTip, fillSegmentTip } from "./tooltip";
import { buildTree, type Tree } from "./tree";
import { showWatchError } from "./watcherror";

export type { Preview } from "./tooltip";

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
  private theme: Theme | null = null;

  private filter: FilterMode;
  private view: ViewMode;
  private expanded = new Set<number>();
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
      setView: (v) => this.setModel("view", v),
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

    this.camera = new Camera(this.canvas, () => {
      this.tip.hide();
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
    this.view = v;
    this.syncControls();
    this.rebuild("display");
    this.recenter();
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
    // The Tree and the Transcript share one display (every shown entry a row): going from
    // one to the other with the same data and filter keeps it rather than laying out a
    // whole session again.
    const keep = level === "display" && this.view !== "branches" && this.scene?.kind === "lanes";
    if (!keep) this.disp = buildDisplay(this.cols, this.tree, this.vis, this.view, this.expanded);
    if (!keep && this.view !== "branches") {
      const lanes = layoutLanes(this.cols, this.tree, this.disp);
      this.layout = lanes;
      this.scene = buildLaneScene(this.cols, this.tree, this.disp, lanes);
      this.camera.fixedX = LANE_LEFT;
      this.camera.rowsHeight = lanes.maxY + lanes.dy;
    } else if (!keep) {
      const sp = SPACING.branches;
      this.layout = layoutDisplay(this.disp, sp.dx, sp.dy);
      this.scene = buildScene(this.cols, this.tree, this.disp, this.layout, "branches");
      this.camera.fixedX = null;
    }
    this.index = null;
    this.tip.d = -1;
    this.root.classList.toggle("pnb-mode-transcript", this.view === "transcript");
    if (this.view === "transcript") this.showTranscript();
    else if (this.transcript.shown) this.transcript.hide();
    this.search.arrange(this.tree.order, this.vis.shown, this.selected);
    this.camera.setMinScale(this.fitTransform().k * 0.5);
    this.updateStatus();
  }

  // ---------------------------------------------------------------- view transform

  private resize(): void {
    const how = this.camera.resize(this.stage);
    if (how === "unchanged") return;
    this.camera.setMinScale(this.fitTransform().k * 0.5);
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

  /** Fit if that keeps nodes readable, else show the selection or the active leaf. */
  private initialView(): void {
    const fit = this.fitTransform();
    if (fit.k >= READABLE_FIT || this.scene.kind === "lanes") this.camera.set(fit);
    else if (this.selected >= 0) this.centerOn(this.selected, 0.9);
    else this.centerOn(this.tree.activeLeaf, 0.9, 0.75);
  }

  /** Put an entry's node at height ``fy`` of the stage (fraction; default the middle). */
  private centerOn(entry: number, k?: number, fy = 0.5): void {
    const d = nodeOfEntry(this.disp, entry);
    if (d < 0) return;
    const least = this.scene.kind === "lanes" ? 1 : 0.6;
    this.camera.lookAt(this.layout.x[d], this.layout.y[d], k ?? Math.max(this.camera.transform.k, least), 0.5, fy);
  }

  private recenter(): void {
    const fit = this.fitTransform();
    if (fit.k >= READABLE_FIT || this.scene.kind === "lanes") this.camera.set(fit);
    else this.centerOn(this.selected >= 0 ? this.selected : this.tree.activeLeaf);
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
    });
  }

  private setHover(d: number): void {
    if (this.tip.set(d, (tip, dd) => this.fillTip(tip, dd))) this.scheduleDraw();
  }

  private fillTip(tip: HTMLElement, d: number): boolean {
    const i = this.disp.entry[d];
    if (this.disp.isSeg[d]) {
      const s = this.disp.segments.get(i);
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
    if (level) this.rebuild(level);
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
