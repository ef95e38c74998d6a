// Hooks for the browser tests and benchmarks: read the view's state, drive it, time it.
// Attached to the root element as ``pnbDebug``; nothing in the widget itself uses them.
import type { Camera } from "./ui/camera";
import type { ViewMode, FilterMode } from "./model/constants";
import { idAt, indexOfId, type Columns } from "./model/data";
import type { Display } from "./model/display";
import type { Visible } from "./model/filter";
import type { Layout } from "./ui/graphview";
import type { DrawStats } from "./ui/canvas";

export interface Timings {
  start: number;
  firstDraw: number;
  firstDrawEnd: number;
  firstFrame: number;
  lastDraw: DrawStats | null;
  phases: Record<string, number>;
}

/** What the hooks may see and do of a SessionView. */
export interface DebugHost {
  timings: Timings;
  /** the anywidget model (tests deliver kernel messages through it) */
  model: unknown;
  canvas: HTMLCanvasElement;
  camera: Camera;
  state(): {
    cols: Columns;
    vis: Visible;
    disp: Display;
    layout: Layout;
    view: ViewMode;
    filter: FilterMode;
    selected: number;
    hits: number;
    hitPos: number;
    lines: number;
  };
  drawNow(): number;
  select(i: number): void;
  centerOn(i: number, k?: number): void;
  fit(): void;
  /** Fit from scratch: the view forgets its builds, builds Fit's level of detail and
   * draws; the time of each. */
  fitCold(): { build: number; draw: number };
  setView(v: ViewMode): void;
  /** the Transcript's rows, drawn rows and bodies asked for */
  transcript(): Record<string, number>;
}

export function debugApi(h: DebugHost): Record<string, unknown> {
  /** Page coordinates of display node ``d``, or null when it is outside the stage. */
  const pagePos = (d: number): { x: number; y: number } | null => {
    const { layout } = h.state();
    const [x, y] = h.camera.toScreen(layout.x[d], layout.y[d]);
    if (!h.camera.inView(x, y)) return null;
    const r = h.canvas.getBoundingClientRect();
    return { x: r.left + x, y: r.top + y };
  };
  return {
    timings: h.timings,
    model: h.model,
    stats: () => {
      const s = h.state();
      const t = h.camera.transform;
      return {
        n: s.cols.n,
        shown: s.vis.count,
        nodes: s.disp.m,
        view: s.view,
        filter: s.filter,
        selected: s.selected >= 0 ? idAt(s.cols, s.selected) : null,
        hits: s.hits,
        hitPos: s.hitPos,
        lines: s.lines,
        lastDraw: h.timings.lastDraw,
        transform: { k: t.k, x: t.x, y: t.y },
      };
    },
    /** Client (page) coordinates of an entry's node, or null if not drawn in view. */
    screenPos: (id: string) => {
      const { cols, disp } = h.state();
      const i = indexOfId(cols, id);
      const d = i >= 0 ? disp.nodeOf[i] : -1;
      const p = d >= 0 ? pagePos(d) : null;
      return p ? { ...p, segment: disp.isSeg[d] === 1 } : null;
    },
    centerOn: (id: string, k?: number) => {
      h.centerOn(indexOfId(h.state().cols, id), k);
      h.drawNow();
    },
    /** Collapsed segments drawn in view: head id and page coordinates. */
    segments: () => {
      const { cols, disp } = h.state();
      const out: { id: string; x: number; y: number }[] = [];
      for (let d = 0; d < disp.m; d++) {
        if (!disp.isSeg[d]) continue;
        const p = pagePos(d);
        if (p) out.push({ id: idAt(cols, disp.entry[d]), ...p });
      }
      return out;
    },
    /** Ids of the entries drawn on their own node or inside a folded Tree row (not those
     * inside a Branches box). */
    visibleIds: () => {
      const { cols, disp } = h.state();
      const out: string[] = [];
      for (let i = 0; i < cols.n; i++) {
        const d = disp.nodeOf[i];
        if (d >= 0 && (!disp.isSeg[d] || disp.folds.has(disp.entry[d]))) out.push(idAt(cols, i));
      }
      return out;
    },
    /** Indices of the entries on a node of their own (not inside a fold or a box): what
     * a click on a row selects. */
    rowIndices: () => {
      const { cols, disp } = h.state();
      const out: number[] = [];
      for (let i = 0; i < cols.n; i++) {
        const d = disp.nodeOf[i];
        if (d >= 0 && !disp.isSeg[d] && disp.entry[d] === i) out.push(i);
      }
      return out;
    },
    /** Tree view (lanes): the rows whose text fits whole on screen (8 px either side of
     * the row's centre), or null in another view. */
    rowsInView: () => {
      const { layout, disp } = h.state();
      if (!("byRow" in layout)) return null;
      const t = h.camera.transform;
      const out: number[] = [];
      for (let r = 0; r < disp.m; r++) {
        const y = r * layout.dy * t.k + t.y;
        if (y >= 8 && y <= h.camera.height - 8) out.push(r);
      }
      return out;
    },
    /** Tree view (lanes): the entry id drawn on each row. */
    rowIds: () => {
      const { layout, disp, cols } = h.state();
      if (!("byRow" in layout)) return null;
      return Array.from(layout.byRow as Int32Array, (d) => idAt(cols, disp.entry[d]));
    },
    transcript: () => h.transcript(),
    drawNow: () => h.drawNow(),
    panBy: (dx: number, dy: number) => {
      h.camera.panBy(dx, dy);
      return h.drawNow();
    },
    selectIndex: (i: number) => {
      const t0 = performance.now();
      h.select(i);
      return performance.now() - t0;
    },
    fit: () => {
      h.fit();
      return h.drawNow();
    },
    fitCold: () => h.fitCold(),
    setView: (v: ViewMode) => {
      const t0 = performance.now();
      h.setView(v);
      return performance.now() - t0;
    },
  };
}
