/** One view of a session: toolbar, canvas graph, tooltip, legend and side panel. */

import type { AnyModel } from "@anywidget/types";
import { quadtree, type Quadtree } from "d3-quadtree";
import { select } from "d3-selection";
import { zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from "d3-zoom";
import { Requester, storeFor, type Store } from "./comm";
import { FILTERS, type FilterMode, type ViewMode } from "./constants";
import { idAt, indexOfId, type Columns } from "./data";
import { buildDisplay, displayChildren, type Display } from "./display";
import { button, clear, el } from "./dom";
import { visibleTree, type Visible } from "./filter";
import { SPACING, layoutDisplay, type Layout } from "./layout";
import {
  renderContext,
  renderEntry,
  renderMessage,
  type ContextDetail,
  type EntryDetail,
  type PanelActions,
} from "./panel";
import { buildScene } from "./scene";
import {
  SEG_H,
  SEG_W,
  draw,
  screenRadius,
  type DrawStats,
  type Scene,
  type Theme,
} from "./render";
import { hitCountText, nextHitPos, orderedHits } from "./hits";
import { keyAction } from "./keys";
import { fillEntryTip, fillSegmentTip, tooltipPosition, type Preview } from "./tooltip";
import { fitBox } from "./viewport";
import { buildLegend } from "./legend";
import { buildTree, type Tree } from "./tree";
import { showWatchError } from "./watcherror";

export type { Preview } from "./tooltip";

export interface ViewOptions {
  standalone?: boolean;
}

const FILTER_LABELS: Record<FilterMode, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};

const asFilter = (v: unknown): FilterMode => ((FILTERS as readonly string[]).includes(String(v)) ? (v as FilterMode) : "default");
const asView = (v: unknown): ViewMode => (v === "branches" ? "branches" : "tree");

export class SessionView {
  readonly root: HTMLDivElement;
  private store: Store;
  private req: Requester;
  private cols: Columns;
  private tree!: Tree;
  private vis!: Visible;
  private disp!: Display;
  private layout!: Layout;
  private scene!: Scene;
  private quad: Quadtree<number> | null = null;

  private canvas: HTMLCanvasElement;
  private ctx: CanvasRenderingContext2D;
  private stage: HTMLDivElement;
  private tooltip: HTMLDivElement;
  private panel: HTMLDivElement;
  private panelBody: HTMLDivElement;
  private legend: HTMLDivElement;
  private statusEl: HTMLSpanElement;
  private titleEl: HTMLDivElement;
  private searchInput: HTMLInputElement;
  private searchCount: HTMLSpanElement;
  private filterSelect: HTMLSelectElement;
  private viewButtons: Record<ViewMode, HTMLButtonElement>;

  private width = 0;
  private height = 0;
  private dpr = 1;
  private transform: ZoomTransform = zoomIdentity;
  private zoomer: ZoomBehavior<HTMLCanvasElement, unknown>;
  private frame = 0;
  private theme: Theme | null = null;

  private filter: FilterMode;
  private view: ViewMode;
  private expanded = new Set<number>();
  private forced = -1;
  private selected = -1;
  private hover = -1;
  private hits: Uint8Array | null = null;
  private hitList: number[] = [];
  private hitHidden = 0;
  private hitPos = -1;
  private searchSeq = 0;
  private panelSeq = 0;
  private previews = new Map<number, Preview | Promise<Preview>>();
  private lines = new Map<number, string>();
  private linesPending = new Set<number>();
  private lastPointer: { x: number; y: number } | null = null;
  private disposers: (() => void)[] = [];
  private searchTimer: ReturnType<typeof setTimeout> | null = null;

  /** Milliseconds from receiving the data (constructor) to the first draw and frame. */
  readonly timings: {
    start: number;
    firstDraw: number;
    firstDrawEnd: number;
    firstFrame: number;
    lastDraw: DrawStats | null;
    phases: Record<string, number>;
  } = { start: 0, firstDraw: -1, firstDrawEnd: -1, firstFrame: -1, lastDraw: null, phases: {} };

  constructor(private model: AnyModel, host: HTMLElement, opts: ViewOptions = {}) {
    this.timings.start = performance.now();
    this.store = storeFor(model);
    this.req = new Requester(model);
    this.cols = this.store.cols;
    this.filter = asFilter(model.get("filter"));
    this.view = asView(model.get("view"));

    // DOM.
    this.root = el("div", `pnb-root${opts.standalone ? " pnb-standalone" : ""}`);
    this.root.tabIndex = 0;
    // Keys pressed in the widget are its own, not JupyterLab's notebook shortcuts.
    this.root.setAttribute("data-lm-suppress-shortcuts", "true");
    const h = Number(model.get("height"));
    if (!opts.standalone && Number.isFinite(h) && h > 120) this.root.style.height = `${h}px`;

    const header = el("div", "pnb-header");
    this.titleEl = el("div", "pnb-title");
    this.statusEl = el("span", "pnb-status");
    header.append(this.titleEl, this.statusEl);
    this.disposers.push(showWatchError(model, this.statusEl));

    const toolbar = el("div", "pnb-toolbar");
    const seg = el("div", "pnb-seg");
    this.viewButtons = {
      tree: button("Tree", "Every entry (v toggles)", () => this.setModel("view", "tree"), "pnb-seg-btn"),
      branches: button("Branches", "One node per run without a fork (v toggles)", () => this.setModel("view", "branches"), "pnb-seg-btn"),
    };
    seg.append(this.viewButtons.tree, this.viewButtons.branches);
    this.filterSelect = el("select", "pnb-select");
    this.filterSelect.title = "Filter, as in the agent's tree view";
    for (const f of FILTERS) {
      const o = el("option", "", FILTER_LABELS[f]);
      o.value = f;
      this.filterSelect.append(o);
    }
    this.filterSelect.addEventListener("change", () => this.setModel("filter", this.filterSelect.value));
    const searchBox = el("div", "pnb-search");
    this.searchInput = el("input", "pnb-search-input");
    this.searchInput.type = "search";
    this.searchInput.placeholder = "Search messages…";
    this.searchInput.spellcheck = false;
    this.searchInput.addEventListener("input", () => {
      if (this.searchTimer) clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.setModel("search", this.searchInput.value), 180);
    });
    this.searchInput.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        if (this.searchTimer) clearTimeout(this.searchTimer);
        if (this.model.get("search") !== this.searchInput.value) this.setModel("search", this.searchInput.value);
        else this.nextHit(ev.shiftKey ? -1 : 1);
      } else if (ev.key === "Escape") {
        this.root.focus();
      }
      ev.stopPropagation();
    });
    this.searchCount = el("span", "pnb-search-count");
    searchBox.append(
      this.searchInput,
      this.searchCount,
      button("‹", "Previous hit (shift+n)", () => this.nextHit(-1), "pnb-icon-btn pnb-prev"),
      button("›", "Next hit (n)", () => this.nextHit(1), "pnb-icon-btn pnb-next"),
    );
    const spacer = el("div", "pnb-spacer");
    toolbar.append(
      seg,
      this.filterSelect,
      searchBox,
      spacer,
      button("Fit", "Fit to view (f)", () => this.fit()),
      button("Active leaf", "Go to the active leaf (a)", () => this.goActive()),
      button("Legend", "Show or hide the legend", () => this.legend.classList.toggle("pnb-collapsed")),
    );

    const main = el("div", "pnb-main");
    this.stage = el("div", "pnb-stage");
    this.canvas = el("canvas", "pnb-canvas");
    this.canvas.setAttribute("aria-label", "Session tree");
    const ctx = this.canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("canvas 2d not available");
    this.ctx = ctx;
    this.tooltip = el("div", "pnb-tooltip pnb-hidden");
    this.legend = el("div", "pnb-legend");
    buildLegend(this.legend);
    this.stage.append(this.canvas, this.tooltip, this.legend);
    this.panel = el("div", "pnb-panel pnb-hidden");
    this.panelBody = el("div", "pnb-panel-body");
    const close = button("×", "Close (Esc)", () => this.select(-1, {}), "pnb-icon-btn pnb-close");
    this.panel.append(close, this.panelBody);
    main.append(this.stage, this.panel);
    this.root.append(header, toolbar, main);
    host.append(this.root);

    // Zoom and pointer.
    this.zoomer = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([0.01, 4])
      .on("zoom", (ev: { transform: ZoomTransform }) => {
        this.transform = ev.transform;
        this.tooltip.classList.add("pnb-hidden");
        this.scheduleDraw();
      });
    select(this.canvas).call(this.zoomer).on("dblclick.zoom", null);
    this.canvas.addEventListener("mousemove", (ev) => this.onPointerMove(ev));
    this.canvas.addEventListener("mouseleave", () => {
      this.lastPointer = null;
      this.setHover(-1);
    });
    this.canvas.addEventListener("click", (ev) => this.onClick(ev));
    this.root.addEventListener("keydown", (ev) => this.onKey(ev));

    const ro = new ResizeObserver(() => this.resize());
    ro.observe(this.stage);
    this.disposers.push(() => ro.disconnect());

    // Model state.
    const on = (name: string, fn: () => void): void => {
      model.on(name, fn);
      this.disposers.push(() => model.off(name, fn));
    };
    on("change:filter", () => this.onFilter());
    on("change:view", () => this.onView());
    on("change:search", () => this.onSearch());
    on("change:selected_id", () => this.onSelectedFromModel());
    this.disposers.push(this.store.subscribe((reset) => this.onData(reset)));
    this.disposers.push(() => this.req.dispose());
    // JupyterLab switches themes by attributes on <body>: read the colours again.
    const themeWatch = new MutationObserver(() => {
      this.theme = null;
      this.scheduleDraw();
    });
    themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light", "class"] });
    this.disposers.push(() => themeWatch.disconnect());
    if (window.matchMedia) {
      const mq = window.matchMedia("(prefers-color-scheme: dark)");
      const fn = (): void => {
        this.theme = null;
        this.scheduleDraw();
      };
      mq.addEventListener?.("change", fn);
      this.disposers.push(() => mq.removeEventListener?.("change", fn));
    }

    // First build and draw.
    this.timings.phases.dom = performance.now() - this.timings.start;
    this.rebuild("data");
    this.timings.phases.build = performance.now() - this.timings.start;
    this.syncControls();
    const sel = indexOfId(this.cols, model.get("selected_id") as string | null);
    if (sel >= 0) this.select(sel, { reveal: true, fromModel: true });
    this.resize();
    if (String(model.get("search") ?? "")) this.onSearch();
    (this.root as unknown as { pnbDebug: unknown }).pnbDebug = this.debugApi();
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    for (const d of this.disposers) d();
    this.disposers = [];
    this.root.remove();
  }

  // ---------------------------------------------------------------- model sync

  private setModel(name: string, value: unknown): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  private syncControls(): void {
    this.filterSelect.value = this.filter;
    for (const v of ["tree", "branches"] as ViewMode[]) this.viewButtons[v].classList.toggle("pnb-on", v === this.view);
    const q = String(this.model.get("search") ?? "");
    if (document.activeElement !== this.searchInput && this.searchInput.value !== q) this.searchInput.value = q;
    const name = this.cols.name || "Session";
    clear(this.titleEl);
    this.titleEl.append(el("span", "pnb-name", name));
    if (this.cols.cwd) this.titleEl.append(el("span", "pnb-cwd", this.cols.cwd));
    this.updateStatus();
  }

  private updateStatus(): void {
    const leaves = this.countLeaves();
    const parts = [
      `${this.cols.n.toLocaleString("en-US")} entries`,
      `${this.vis.count.toLocaleString("en-US")} shown`,
      `${leaves.toLocaleString("en-US")} ${leaves === 1 ? "leaf" : "leaves"}`,
    ];
    if (this.cols.compactions.length) parts.push(`${this.cols.compactions.length} compaction${this.cols.compactions.length > 1 ? "s" : ""}`);
    this.statusEl.textContent = parts.join(" · ");
  }

  private countLeaves(): number {
    let c = 0;
    for (let i = 0; i < this.tree.n; i++) if (this.tree.childStart[i + 1] === this.tree.childStart[i]) c++;
    return c;
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

  private onData(reset: boolean): void {
    const prevSelectedId = this.selected >= 0 ? idAt(this.cols, this.selected) : null;
    this.cols = this.store.cols;
    this.previews.clear();
    if (reset) {
      this.lines.clear();
      this.linesPending.clear();
    }
    if (reset) {
      this.expanded.clear();
      this.forced = -1;
      this.selected = indexOfId(this.cols, prevSelectedId);
    }
    this.rebuild("data");
    this.syncControls();
    if (String(this.model.get("search") ?? "")) this.onSearch();
    if (reset) this.initialView();
    this.drawNow();
  }

  private onSelectedFromModel(): void {
    const id = this.model.get("selected_id") as string | null;
    const i = indexOfId(this.cols, id);
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
    this.disp = buildDisplay(this.cols, this.tree, this.vis, this.view, this.expanded);
    const sp = SPACING[this.view];
    this.layout = layoutDisplay(this.disp, sp.dx, sp.dy);
    this.scene = buildScene(this.cols, this.tree, this.disp, this.layout, this.view);
    this.quad = null;
    this.hover = -1;
    this.computeHitList();
    this.updateZoomExtent();
    if (this.vis) this.updateStatus();
  }

  private updateZoomExtent(): void {
    const fit = this.fitTransform();
    this.zoomer.scaleExtent([Math.min(fit.k * 0.5, 0.5), 4]);
  }

  private quadtree(): Quadtree<number> {
    if (!this.quad) {
      const { x, y } = this.layout;
      const ids = new Array<number>(this.disp.m);
      for (let d = 0; d < this.disp.m; d++) ids[d] = d;
      this.quad = quadtree<number>()
        .x((d) => x[d])
        .y((d) => y[d])
        .addAll(ids);
    }
    return this.quad;
  }

  // ---------------------------------------------------------------- view transform

  private resize(): void {
    const r = this.stage.getBoundingClientRect();
    if (r.width < 10 || r.height < 10) return;
    const w = Math.round(r.width);
    const h = Math.round(r.height);
    const dpr = window.devicePixelRatio || 1;
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    const first = this.width === 0;
    if (!first) {
      // Keep what was in the middle in the middle.
      const t = this.transform;
      this.setTransform(t.translate((w - this.width) / 2 / t.k, (h - this.height) / 2 / t.k));
    }
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.updateZoomExtent();
    if (first && (w < 820 || h < 560)) this.legend.classList.add("pnb-collapsed");
    if (first) {
      this.timings.phases.sized = performance.now() - this.timings.start;
      this.initialView();
      this.drawNow();
      this.timings.firstDrawEnd = performance.now();
      this.timings.firstDraw = this.timings.firstDrawEnd - this.timings.start;
      this.root.dataset.drawn = "1";
      requestAnimationFrame(() => {
        this.timings.firstFrame = performance.now() - this.timings.start;
      });
    } else this.drawNow();
  }

  private fitTransform(): ZoomTransform {
    const margin = this.view === "branches" ? [SEG_W, SEG_H] : [40, 40];
    const f = fitBox(this.layout, margin[0], margin[1], this.width, this.height);
    return zoomIdentity.translate(f.x, f.y).scale(f.k);
  }

  private setTransform(t: ZoomTransform): void {
    this.transform = t;
    select(this.canvas).call(this.zoomer.transform, t);
  }

  fit(): void {
    this.setTransform(this.fitTransform());
  }

  /** Fit if that keeps nodes readable, else show the selection or the active leaf. */
  private initialView(): void {
    const fit = this.fitTransform();
    if (fit.k >= 0.35) this.setTransform(fit);
    else if (this.selected >= 0) this.centerOn(this.selected, 0.9);
    else this.centerOn(this.tree.activeLeaf, 0.9, 0.75);
  }

  /** Put an entry's node at (fx, fy) of the stage (fractions; default the middle). */
  private centerOn(entry: number, k?: number, fy = 0.5): void {
    const d = entry >= 0 ? this.disp.nodeOf[entry] : -1;
    if (d < 0) return;
    const kk = k ?? Math.max(this.transform.k, 0.6);
    const t = zoomIdentity
      .translate(this.width / 2 - this.layout.x[d] * kk, this.height * fy - this.layout.y[d] * kk)
      .scale(kk);
    this.setTransform(t);
  }

  private recenter(): void {
    const target = this.selected >= 0 ? this.selected : this.tree.activeLeaf;
    const fit = this.fitTransform();
    if (fit.k >= 0.35) this.setTransform(fit);
    else this.centerOn(target);
  }

  goActive(): void {
    const leaf = this.tree.activeLeaf;
    if (leaf < 0) return;
    this.select(leaf, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- drawing

  private readTheme(): Theme {
    if (this.theme) return this.theme;
    const cs = getComputedStyle(this.root);
    const v = (name: string, fallback: string): string => cs.getPropertyValue(name).trim() || fallback;
    this.theme = {
      bg: v("--pnb-canvas-bg", "#ffffff"),
      fg: v("--pnb-fg", "#1f2933"),
      muted: v("--pnb-muted", "#6b7785"),
      edge: v("--pnb-edge", "#c5ccd6"),
      active: v("--pnb-active", "#1f2933"),
      accent: v("--pnb-accent", "#3b82f6"),
      segFill: v("--pnb-seg-fill", "#f3f5f8"),
      font: v("--pnb-font", "system-ui, sans-serif"),
    };
    return this.theme;
  }

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
    const stats = draw(this.ctx, this.scene, this.transform, this.width, this.height, this.dpr, this.readTheme(), {
      selected: this.selected,
      hover: this.hover,
      hits: this.hits,
      currentHit: this.hitPos >= 0 ? this.hitList[this.hitPos] : -1,
      lines: this.lines,
    });
    this.timings.lastDraw = stats;
    if (stats.missingLines && stats.missingLines.length) this.fetchLines(stats.missingLines);
    return stats.ms;
  }

  // ---------------------------------------------------------------- pointer

  private toWorld(px: number, py: number): [number, number] {
    const t = this.transform;
    return [(px - t.x) / t.k, (py - t.y) / t.k];
  }

  private local(ev: MouseEvent): [number, number] {
    const r = this.canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  }

  /** The thing under a point (canvas coordinates). */
  hitTest(px: number, py: number): { type: "node"; d: number } | { type: "badge"; head: number } | null {
    const k = this.transform.k;
    const { x, y } = this.layout;
    for (const h of this.disp.expandedHeads) {
      const d = this.disp.nodeOf[h];
      if (d < 0) continue;
      const bx = x[d] * k + this.transform.x - Math.max(16 * k, 8);
      const by = y[d] * k + this.transform.y;
      if (Math.hypot(px - bx, py - by) <= Math.max(6 * k, 4) + 3) return { type: "badge", head: h };
    }
    if (!this.disp.m) return null;
    const [wx, wy] = this.toWorld(px, py);
    const radius = this.view === "branches" ? Math.max(SEG_W / 2 + 4, 10 / k) : Math.max(12 / k, 10);
    const d = this.quadtree().find(wx, wy, radius);
    if (d === undefined) return null;
    const sx = x[d] * k + this.transform.x;
    const sy = y[d] * k + this.transform.y;
    if (this.disp.isSeg[d]) {
      const hw = Math.max(SEG_W * k, 6) / 2 + 3;
      const hh = Math.max(SEG_H * k, 4) / 2 + 3;
      return Math.abs(px - sx) <= hw && Math.abs(py - sy) <= hh ? { type: "node", d } : null;
    }
    const r = screenRadius(this.cols.kind[this.disp.entry[d]], k);
    return Math.hypot(px - sx, py - sy) <= Math.max(r + 4, 7) ? { type: "node", d } : null;
  }

  private onPointerMove(ev: MouseEvent): void {
    const [px, py] = this.local(ev);
    this.lastPointer = { x: px, y: py };
    const hit = this.hitTest(px, py);
    this.canvas.style.cursor = hit ? "pointer" : "grab";
    this.setHover(hit && hit.type === "node" ? hit.d : -1);
  }

  private setHover(d: number): void {
    if (d === this.hover) {
      if (d >= 0) this.placeTooltip();
      return;
    }
    this.hover = d;
    this.scheduleDraw();
    if (d < 0) {
      this.tooltip.classList.add("pnb-hidden");
      return;
    }
    this.showTooltip(d);
  }

  private placeTooltip(): void {
    if (!this.lastPointer) return;
    const tip = this.tooltip;
    const { left, top } = tooltipPosition(
      this.lastPointer,
      tip.offsetWidth || 260,
      tip.offsetHeight || 60,
      this.width,
      this.height,
    );
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  }

  private showTooltip(d: number): void {
    const tip = this.tooltip;
    const i = this.disp.entry[d];
    if (this.disp.isSeg[d]) {
      const s = this.disp.segments.get(i);
      if (!s) return;
      fillSegmentTip(tip, s);
    } else {
      fillEntryTip(
        tip,
        {
          kind: this.cols.kind[i],
          label: this.cols.labels.get(i),
          tokens: this.cols.tokens[i],
          error: Boolean(this.cols.flags[i] & 1),
        },
        this.preview(i),
        () => this.hover === d,
        () => this.placeTooltip(),
      );
    }
    tip.classList.remove("pnb-hidden");
    this.placeTooltip();
  }

  /** Ask for the first lines of entries in view (drawn beside them when zoomed in). */
  private fetchLines(indices: number[]): void {
    const want = indices.filter((i) => !this.linesPending.has(i)).slice(0, 400);
    if (!want.length) return;
    for (const i of want) this.linesPending.add(i);
    const cols = this.cols;
    this.req.request<{ lines: string[] }>("lines", { indices: want }).then(
      (res) => {
        if (cols !== this.cols) return;
        want.forEach((i, j) => this.lines.set(i, String(res?.lines?.[j] ?? "")));
        this.scheduleDraw();
      },
      () => {
        for (const i of want) this.lines.set(i, "");
      },
    );
  }

  private preview(i: number): Promise<Preview> {
    const cached = this.previews.get(i);
    if (cached) return Promise.resolve(cached);
    const p = this.req.request<Preview>("preview", { index: i }).then((v) => {
      const val = v ?? {};
      this.previews.set(i, val);
      return val;
    });
    this.previews.set(i, p);
    p.catch(() => this.previews.delete(i));
    return p;
  }

  private onClick(ev: MouseEvent): void {
    this.root.focus({ preventScroll: true });
    const [px, py] = this.local(ev);
    const hit = this.hitTest(px, py);
    if (!hit) return;
    if (hit.type === "badge") {
      this.expanded.delete(hit.head);
      this.rebuild("display");
      this.drawNow();
      return;
    }
    const d = hit.d;
    if (this.disp.isSeg[d]) {
      this.toggleSegment(this.disp.entry[d]);
      return;
    }
    this.select(this.disp.entry[d], {});
  }

  private toggleSegment(head: number): void {
    if (this.expanded.has(head)) this.expanded.delete(head);
    else this.expanded.add(head);
    this.rebuild("display");
    this.drawNow();
  }

  // ---------------------------------------------------------------- selection

  /** Select an entry (-1 clears). reveal: show it even if filtered or collapsed. */
  select(i: number, o: { reveal?: boolean; center?: boolean; fromModel?: boolean }): void {
    const prev = this.selected;
    this.selected = i;
    let level: "visible" | "display" | null = null;
    if (this.forced >= 0 && this.forced !== i) {
      this.forced = -1;
      level = "visible";
    }
    if (i >= 0 && o.reveal) {
      if (!this.vis.shown[i]) {
        this.forced = i;
        level = "visible";
      }
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
    this.loadPanel(i);
    this.drawNow();
  }

  private ensureInView(i: number): void {
    const d = this.disp.nodeOf[i];
    if (d < 0) return;
    const t = this.transform;
    const px = this.layout.x[d] * t.k + t.x;
    const py = this.layout.y[d] * t.k + t.y;
    if (px < 30 || px > this.width - 30 || py < 30 || py > this.height - 30) this.centerOn(i, t.k);
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
      showContext: (j) => this.loadContext(j),
      close: () => this.select(-1, {}),
    };
  }

  private loadPanel(i: number): void {
    const seq = ++this.panelSeq;
    if (i < 0) {
      this.panel.classList.add("pnb-hidden");
      this.root.classList.remove("pnb-has-panel");
      return;
    }
    const wasHidden = this.panel.classList.contains("pnb-hidden");
    this.panel.classList.remove("pnb-hidden");
    this.root.classList.add("pnb-has-panel");
    if (wasHidden) {
      requestAnimationFrame(() => {
        this.resize();
        if (this.width < 900) this.legend.classList.add("pnb-collapsed");
      });
    }
    this.panel.dataset.index = String(i);
    this.panel.dataset.entryId = idAt(this.cols, i);
    renderMessage(this.panelBody, "Loading…");
    this.req.request<EntryDetail | null>("entry", { index: i }).then(
      (detail) => {
        if (seq !== this.panelSeq) return;
        if (!detail) {
          renderMessage(this.panelBody, "This entry is not available.");
          return;
        }
        const isLeaf = this.tree.childStart[i + 1] === this.tree.childStart[i];
        renderEntry(this.panelBody, detail, this.panelActions(), isLeaf);
        this.panel.dataset.loaded = String(i);
      },
      (err: Error) => {
        if (seq === this.panelSeq) renderMessage(this.panelBody, `Could not load the entry: ${err.message}`, "pnb-error-text");
      },
    );
  }

  private loadContext(i: number): void {
    const seq = ++this.panelSeq;
    renderMessage(this.panelBody, "Building the context…");
    this.req.request<ContextDetail | null>("context", { index: i }).then(
      (ctx) => {
        if (seq !== this.panelSeq) return;
        if (!ctx) {
          renderMessage(this.panelBody, "The context is not available here.");
          return;
        }
        renderContext(this.panelBody, ctx, this.panelActions(), () => this.loadPanel(this.selected));
        this.panel.dataset.loaded = `context-${i}`;
      },
      (err: Error) => {
        if (seq === this.panelSeq) renderMessage(this.panelBody, `Could not build the context: ${err.message}`, "pnb-error-text");
      },
    );
  }

  // ---------------------------------------------------------------- search

  private onSearch(): void {
    const q = String(this.model.get("search") ?? "").trim();
    this.syncControls();
    const seq = ++this.searchSeq;
    if (!q) {
      this.hits = null;
      this.computeHitList();
      this.drawNow();
      return;
    }
    this.searchCount.textContent = "…";
    this.req.request<{ indices: number[] }>("search", { query: q }).then(
      (res) => {
        if (seq !== this.searchSeq) return;
        const mask = new Uint8Array(this.cols.n);
        for (const i of res?.indices ?? []) if (i >= 0 && i < this.cols.n) mask[i] = 1;
        this.hits = mask;
        this.computeHitList();
        this.drawNow();
      },
      () => {
        if (seq === this.searchSeq) this.searchCount.textContent = "error";
      },
    );
  }

  private computeHitList(): void {
    this.hitList = [];
    this.hitHidden = 0;
    this.hitPos = -1;
    if (!this.hits || !this.tree) {
      if (this.searchCount) this.searchCount.textContent = "";
      return;
    }
    const found = orderedHits(this.tree.order, this.hits, this.vis.shown);
    this.hitList = found.list;
    this.hitHidden = found.hidden;
    this.hitPos = this.hitList.indexOf(this.selected);
    this.updateHitCount();
  }

  private updateHitCount(): void {
    this.searchCount.textContent = hitCountText(this.hitPos, this.hitList.length, this.hitHidden);
  }

  nextHit(step: number): void {
    const n = this.hitList.length;
    if (!n) return;
    this.hitPos = nextHitPos(this.hitPos, step, n);
    const i = this.hitList[this.hitPos];
    this.updateHitCount();
    this.select(i, { reveal: true, center: true });
  }

  // ---------------------------------------------------------------- keyboard

  private onKey(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (this.panel.contains(target) && ev.key !== "Escape") return;
    const disp = this.disp;
    const cur = this.selected >= 0 ? disp.nodeOf[this.selected] : -1;
    const go = (d: number): void => {
      if (d < 0 || d >= disp.m) return;
      this.select(disp.entry[d], {});
    };
    const siblings = (d: number): Int32Array => (disp.dparent[d] >= 0 ? displayChildren(disp, disp.dparent[d]) : disp.roots);
    const action = keyAction(ev.key);
    switch (action) {
      case "parent":
        if (cur < 0) go(disp.nodeOf[this.tree.activeLeaf]);
        else go(disp.dparent[cur]);
        break;
      case "child": {
        if (cur < 0) {
          go(disp.roots[0] ?? -1);
          break;
        }
        const kids = displayChildren(disp, cur);
        if (!kids.length) break;
        let next = kids[0];
        for (const c of kids) if (this.tree.onActive[disp.entry[c]]) next = c;
        go(next);
        break;
      }
      case "previousSibling":
      case "nextSibling": {
        if (cur < 0) break;
        const sib = siblings(cur);
        const pos = sib.indexOf(cur);
        const nxt = pos + (action === "previousSibling" ? -1 : 1);
        if (nxt >= 0 && nxt < sib.length) go(sib[nxt]);
        break;
      }
      case "toggle":
        if (cur >= 0 && this.view === "branches") {
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
        this.setModel("view", this.view === "tree" ? "branches" : "tree");
        break;
      case "search":
        this.searchInput.focus();
        break;
      case "nextHit":
        this.nextHit(1);
        break;
      case "previousHit":
        this.nextHit(-1);
        break;
      case "deselect":
        this.select(-1, {});
        this.root.focus();
        break;
    }
    const handled = action !== null;
    if (handled) {
      ev.preventDefault();
      ev.stopPropagation();
    }
  }

  // ---------------------------------------------------------------- test and benchmark hooks

  private debugApi(): Record<string, unknown> {
    return {
      timings: this.timings,
      stats: () => ({
        n: this.cols.n,
        shown: this.vis.count,
        nodes: this.disp.m,
        view: this.view,
        filter: this.filter,
        selected: this.selected >= 0 ? idAt(this.cols, this.selected) : null,
        hits: this.hitList.length,
        hitPos: this.hitPos,
        lines: this.lines.size,
        lastDraw: this.timings.lastDraw,
        transform: { k: this.transform.k, x: this.transform.x, y: this.transform.y },
      }),
      /** Client (page) coordinates of an entry's node, or null if not drawn in view. */
      screenPos: (id: string) => {
        const i = indexOfId(this.cols, id);
        const d = i >= 0 ? this.disp.nodeOf[i] : -1;
        if (d < 0) return null;
        const r = this.canvas.getBoundingClientRect();
        const t = this.transform;
        const x = this.layout.x[d] * t.k + t.x;
        const y = this.layout.y[d] * t.k + t.y;
        if (x < 0 || y < 0 || x > this.width || y > this.height) return null;
        return { x: r.left + x, y: r.top + y, segment: this.disp.isSeg[d] === 1 };
      },
      centerOn: (id: string, k?: number) => {
        const i = indexOfId(this.cols, id);
        this.centerOn(i, k);
        this.drawNow();
      },
      /** Collapsed segments drawn in view: head id and page coordinates. */
      segments: () => {
        const r = this.canvas.getBoundingClientRect();
        const t = this.transform;
        const out: { id: string; x: number; y: number }[] = [];
        for (let d = 0; d < this.disp.m; d++) {
          if (!this.disp.isSeg[d]) continue;
          const x = this.layout.x[d] * t.k + t.x;
          const y = this.layout.y[d] * t.k + t.y;
          if (x < 0 || y < 0 || x > this.width || y > this.height) continue;
          out.push({ id: idAt(this.cols, this.disp.entry[d]), x: r.left + x, y: r.top + y });
        }
        return out;
      },
      visibleIds: () => Array.from(this.disp.entry, (i, d) => (this.disp.isSeg[d] ? null : idAt(this.cols, i))).filter(Boolean),
      drawNow: () => this.drawNow(),
      panBy: (dx: number, dy: number) => {
        this.transform = this.transform.translate(dx / this.transform.k, dy / this.transform.k);
        return this.drawNow();
      },
      selectIndex: (i: number) => {
        const t0 = performance.now();
        this.select(i, {});
        return performance.now() - t0;
      },
      fit: () => {
        this.fit();
        return this.drawNow();
      },
      setView: (v: ViewMode) => {
        const t0 = performance.now();
        this.setModel("view", v);
        return performance.now() - t0;
      },
    };
  }
}
