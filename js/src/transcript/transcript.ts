/**
 * The transcript view: one branch read top to bottom, the way the agent's own HTML export
 * reads. It is a virtual list (``vlist.ts``): the DOM holds the rows on screen and a
 * margin, and an entry's node line and full content are asked for only once it is on
 * screen, so a branch of 100k entries opens at once and costs requests only for what is
 * read.
 */

import type { Requester } from "../io/comm";
import { KIND_STYLES, Kind, entryKindName } from "../model/constants";

/** Kinds whose content is read in a transcript; the rest (model changes, labels, states)
 * are one line each: their node line says all there is. */
const READ_KINDS: ReadonlySet<number> = new Set([
  Kind.User,
  Kind.Assistant,
  Kind.ToolResult,
  Kind.Bash,
  Kind.CustomMessage,
  Kind.Compaction,
  Kind.BranchSummary,
]);
import { idAt, type Columns } from "../model/data";
import { clear, el } from "../ui/dom";
import { entryBody, revealHits, type EntryDetail, type PanelActions } from "../ui/panelcontent";
import type { Tree } from "../model/tree";
import { RowHeights, wanted, type Anchor } from "./vlist";

/** The branch through ``entry`` (or the active path when -1): root down to ``entry``,
 * then on to a leaf along the active path where it goes, else the newest child. */
export function branchPath(tree: Tree, entry: number): number[] {
  let leaf = entry >= 0 ? entry : tree.activeLeaf;
  if (leaf < 0) return [];
  for (let guard = 0; guard <= tree.n; guard++) {
    const s = tree.childStart[leaf];
    const e = tree.childStart[leaf + 1];
    if (e === s) break;
    let next = tree.childList[e - 1]; // children are oldest first: the newest is last
    for (let j = s; j < e; j++) if (tree.onActive[tree.childList[j]]) next = tree.childList[j];
    leaf = next;
  }
  const path: number[] = [];
  for (let v = leaf, guard = 0; v >= 0 && guard <= tree.n; v = tree.parent[v], guard++) path.push(v);
  return path.reverse();
}

/** Pixels drawn beyond the screen on either side, so a short scroll shows rows at once. */
const MARGIN = 600;
/** Rows drawn at most, whatever the estimates say (a bound on the DOM). */
const MAX_DRAWN = 160;
/** Quiet time after a scroll before bodies and node lines are asked for. */
export const LOAD_DELAY_MS = 80;
/** Bodies asked for in one request, and requests out at once; the rest wait, and are
 * dropped if they scroll away first. */
const BATCH = 8;
const BATCHES = 2;
/** Bodies kept after they scroll away, so scrolling back shows them without asking. */
const CACHE = 2000;
/** Time spent filling bodies in one task before yielding to the page. */
const FILL_BUDGET_MS = 30;
/** Estimated heights before a row is drawn: a header, with a body for entries that are read. */
const EST_NOTE = 26;
const EST_READ = 110;

/** Events that mean the reader scrolls by hand (a programmatic scroll sends none). */
const USER_SCROLLS = ["wheel", "pointerdown", "keydown", "touchstart"] as const;

type Loaded = { detail: EntryDetail | null } | { error: string };

/** Hooks of the coordinator: node lines (cached, fetched on demand) and selection. */
export interface TranscriptHooks {
  /** the node line of an entry, if known */
  line(i: number): string | undefined;
  /** ask for the node lines of these entries; ``ready`` runs when they arrive */
  needLines(indices: number[], ready: () => void): void;
  select(i: number): void;
  /** the search in force: Thinking blocks holding its words are opened */
  query?(): string;
}

/** One branch as a virtual list: only the rows on screen (and a margin) are in the DOM,
 * heights are estimated until drawn, and bodies are asked for only for the rows on screen
 * once scrolling pauses, so a branch of 100k entries opens at once and the kernel works
 * only for what is read. */
export class Transcript {
  readonly el: HTMLDivElement;
  private head: HTMLDivElement;
  private space: HTMLDivElement;
  private win: HTMLDivElement;
  private rows: number[] = [];
  private posOf = new Int32Array(0);
  private kinds: ArrayLike<number> = [];
  private cols: Columns | null = null;
  private heights = new RowHeights([]);
  private drawn = new Map<number, HTMLElement>();
  private first = 0;
  private selected = -1;
  private loaded = new Map<number, Loaded>();
  private pending = new Set<number>();
  private batches = 0;
  private queue: number[] = [];
  private generation = 0;
  private frame = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private resizer: ResizeObserver | null = null;
  private toFill = new Set<number>();
  private fillTimer: ReturnType<typeof setTimeout> | null = null;
  private onScroll = (): void => this.schedule();
  /** The selected row's place on screen, kept while bodies above it load, until the
   * reader scrolls by hand. */
  private pin: Anchor | null = null;
  private unpin = (): void => {
    this.pin = null;
  };

  constructor(
    private req: Requester,
    private actions: PanelActions,
    private hooks: TranscriptHooks,
    private loadDelay = LOAD_DELAY_MS,
  ) {
    this.el = el("div", "pnb-transcript pnb-hidden");
    this.el.tabIndex = -1;
    this.head = el("div", "pnb-tx-head");
    this.space = el("div", "pnb-tx-space");
    this.win = el("div", "pnb-tx-win");
    this.space.append(this.win);
    this.el.append(this.head, this.space);
    this.el.addEventListener("scroll", this.onScroll, { passive: true });
    for (const type of USER_SCROLLS) this.el.addEventListener(type, this.unpin, { passive: true });
  }

  dispose(): void {
    this.stop();
    this.el.removeEventListener("scroll", this.onScroll);
    for (const type of USER_SCROLLS) this.el.removeEventListener(type, this.unpin);
  }

  get shown(): boolean {
    return !this.el.classList.contains("pnb-hidden");
  }

  /** The entry is a row of the branch shown. */
  has(i: number): boolean {
    return i >= 0 && i < this.posOf.length && this.posOf[i] >= 0;
  }

  /** Rows of the branch, drawn rows, and entries asked for (for tests and benchmarks). */
  stats(): { rows: number; drawn: number; first: number; loaded: number; pending: number } {
    return { rows: this.rows.length, drawn: this.drawn.size, first: this.first, loaded: this.loaded.size, pending: this.pending.size };
  }

  hide(): void {
    this.el.classList.add("pnb-hidden");
    this.stop();
  }

  private stop(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.resizer?.disconnect();
    this.resizer = null;
    this.queue = [];
    if (this.fillTimer) clearTimeout(this.fillTimer);
    this.fillTimer = null;
    this.toFill.clear();
  }

  /** Show ``path`` (entry indices, root first); entries failing ``keep`` are left out.
   * Returns true when it is the branch shown already, grown: the reader's place is kept. */
  show(path: number[], cols: Columns, keep: (i: number) => boolean, selected: number): boolean {
    const rows = path.filter(keep);
    // The same branch with entries appended (a live session): keep the reader's place,
    // the rows drawn, the heights measured and the bodies read.
    const grows = this.shown && this.continues(rows, cols);
    const before = this.heights;
    if (!grows) {
      this.generation++;
      this.stop();
      this.loaded.clear();
      this.pending.clear();
      this.batches = 0;
      for (const node of this.drawn.values()) node.remove();
      this.drawn.clear();
    }
    this.el.classList.remove("pnb-hidden");
    this.cols = cols;
    this.kinds = cols.kind;
    this.selected = selected;
    const kept = grows ? this.rows.length : 0;
    this.rows = rows;
    this.posOf = new Int32Array(cols.n).fill(-1);
    this.rows.forEach((i, r) => (this.posOf[i] = r));
    this.heights = new RowHeights(this.rows.map((i) => (READ_KINDS.has(cols.kind[i]) ? EST_READ : EST_NOTE)));
    this.heights.carry(before, kept);
    clear(this.head);
    this.head.append(
      el("span", "pnb-tx-title", `Transcript · ${this.rows.length.toLocaleString("en-US")} entries on this branch`),
      el("span", "pnb-muted pnb-small", "click an entry's header to select it in the tree"),
    );
    if (grows) {
      for (const [j, node] of this.drawn) node.classList.toggle("pnb-tx-selected", j === selected);
      this.render();
      return true;
    }
    this.el.scrollTop = 0;
    this.pin = null;
    if (typeof ResizeObserver !== "undefined") {
      this.resizer = new ResizeObserver(() => this.schedule());
      this.resizer.observe(this.win);
      this.resizer.observe(this.el);
    }
    this.render();
    return false;
  }

  /** ``rows`` start with the rows shown now, the same entries (by id). */
  private continues(rows: number[], cols: Columns): boolean {
    const old = this.rows;
    const k = old.length;
    const prev = this.cols;
    if (!k || !prev || rows.length < k) return false;
    for (let r = 0; r < k; r++) if (rows[r] !== old[r]) return false;
    // indices name the same entries only if the data was appended to, not replaced
    return idAt(cols, rows[0]) === idAt(prev, old[0]) && idAt(cols, rows[k - 1]) === idAt(prev, old[k - 1]);
  }

  /** Mark ``i`` selected and scroll it to the middle of the screen. */
  focus(i: number): void {
    this.selected = i;
    for (const [j, node] of this.drawn) node.classList.toggle("pnb-tx-selected", j === i);
    const r = this.has(i) ? this.posOf[i] : -1;
    if (r < 0) return;
    // Twice: the first pass draws the row with estimated heights above it, the second
    // centres it again on what was measured.
    for (let pass = 0; pass < 2; pass++) {
      const y = this.heights.centre(r, this.viewport());
      this.pin = { row: r, offset: y - this.heights.top(r) };
      this.el.scrollTop = this.listTop() + y;
      this.render();
    }
  }

  /** Node lines arrived: fill the headers that were waiting for them. */
  refreshLines(): void {
    for (const [i, item] of this.drawn) {
      const line = item.querySelector(".pnb-tx-line");
      if (line && !line.textContent) line.textContent = this.hooks.line(i) ?? "";
    }
  }

  private viewport(): number {
    return this.el.clientHeight || 600;
  }

  private listTop(): number {
    return this.space.offsetTop;
  }

  private schedule(): void {
    if (this.frame || !this.shown) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Draw the rows of the window, measure them, and keep the row being read in place. */
  private render(): void {
    if (!this.shown) return;
    const laidOut = this.el.clientHeight > 0;
    for (let pass = 0; pass < 3; pass++) {
      const y = this.el.scrollTop - this.listTop();
      const anchor = this.pin ?? this.heights.anchor(Math.max(0, y));
      const [start, rawEnd] = this.heights.window(y, this.viewport(), MARGIN);
      const end = Math.min(rawEnd, start + MAX_DRAWN);
      const changed = this.place(start, end);
      if (!laidOut) break;
      let moved = false;
      for (let r = start; r < end; r++) {
        const node = this.drawn.get(this.rows[r]);
        if (node && this.heights.set(r, measure(node))) moved = true;
      }
      this.space.style.height = `${this.heights.total}px`;
      this.win.style.transform = `translateY(${this.heights.top(start)}px)`;
      if (moved && (y > 0 || this.pin)) {
        const want = this.listTop() + this.heights.scrollFor(anchor);
        if (Math.abs(want - this.el.scrollTop) > 0.5) this.el.scrollTop = want;
      }
      if (!changed && !moved) break;
    }
    this.space.style.height = `${this.heights.total}px`;
    this.win.style.transform = `translateY(${this.heights.top(this.first)}px)`;
    this.armLoad();
  }

  /** Make the DOM hold exactly rows ``[start, end)``; returns whether it changed. */
  private place(start: number, end: number): boolean {
    let changed = false;
    for (const [i, node] of this.drawn) {
      const r = this.posOf[i];
      if (r < start || r >= end) {
        node.remove();
        this.drawn.delete(i);
        changed = true;
      }
    }
    let prev: HTMLElement | null = null;
    for (let r = start; r < end; r++) {
      const i = this.rows[r];
      let node = this.drawn.get(i);
      if (!node) {
        node = this.item(i);
        this.drawn.set(i, node);
        changed = true;
      }
      const at: ChildNode | null = prev ? prev.nextSibling : this.win.firstChild;
      if (at !== node) this.win.insertBefore(node, at);
      prev = node;
    }
    this.first = start;
    return changed;
  }

  private item(i: number): HTMLElement {
    const cols = this.cols as Columns;
    const item = el("article", "pnb-tx-item");
    item.dataset.index = String(i);
    item.dataset.entryId = idAt(cols, i);
    item.style.setProperty("--pnb-badge", KIND_STYLES[cols.kind[i]]?.color ?? "#888");
    const bar = el("header", "pnb-tx-bar");
    const named = entryKindName(cols.kind[i], this.hooks.line(i) ?? "");
    bar.append(el("span", "pnb-tx-kind", named.name), el("span", "pnb-tx-line", named.rest));
    const label = cols.labels.get(i);
    if (label) bar.append(el("span", "pnb-label-tag", label));
    bar.addEventListener("click", () => this.hooks.select(i));
    if (i === this.selected) item.classList.add("pnb-tx-selected");
    if (!READ_KINDS.has(cols.kind[i])) {
      item.classList.add("pnb-tx-note");
      item.append(bar);
      return item;
    }
    item.append(bar, el("div", "pnb-tx-body pnb-muted pnb-small", "…"));
    const got = this.loaded.get(i);
    if (got) this.fillItem(item, got);
    return item;
  }

  /** Once scrolling pauses, ask for what the rows on screen still lack. */
  private armLoad(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.loadVisible();
    }, this.loadDelay);
  }

  /** The rows on the screen itself (not the margin), nearest its middle first. */
  private onScreen(): number[] {
    const y = this.el.scrollTop - this.listTop();
    const vh = this.viewport();
    const [start, end] = this.heights.window(y, vh, 0);
    const mid = this.heights.rowAt(y + vh / 2);
    return wanted(start, Math.min(end, start + MAX_DRAWN), mid, () => false).map((r) => this.rows[r]);
  }

  private loadVisible(): void {
    // Only rows drawn now: after a scroll whose frame is still to come, the rows on screen
    // are not drawn yet, and that frame arms the load again once they are.
    if (!this.shown) return;
    const rows = this.onScreen().filter((i) => this.drawn.has(i));
    const lines = rows.filter((i) => this.hooks.line(i) === undefined);
    if (lines.length) this.hooks.needLines(lines, () => this.refreshLines());
    // What scrolled away before its turn is dropped from the queue.
    this.queue = rows.filter((i) => READ_KINDS.has(this.kinds[i]) && !this.loaded.has(i) && !this.pending.has(i));
    this.pump();
  }

  private pump(): void {
    while (this.batches < BATCHES && this.queue.length) this.fetch(this.queue.splice(0, BATCH));
  }

  /** Ask for the bodies of ``rows`` in one request ("entries": the kernel reads them in
   * one pass over the file). */
  private fetch(rows: number[]): void {
    const gen = this.generation;
    this.batches++;
    for (const i of rows) this.pending.add(i);
    const done = (i: number, got: Loaded): void => {
      this.pending.delete(i);
      this.loaded.set(i, got);
      if (this.drawn.has(i)) this.fillSoon(i);
    };
    const finish = (each: (i: number, k: number) => Loaded): void => {
      if (gen !== this.generation) return;
      this.batches--;
      rows.forEach((i, k) => done(i, each(i, k)));
      if (this.loaded.size > CACHE) {
        for (const j of this.loaded.keys()) {
          if (this.loaded.size <= CACHE) break;
          if (!this.drawn.has(j)) this.loaded.delete(j);
        }
      }
      this.pump();
    };
    this.req.request<{ entries?: unknown[] } | null>("entries", { indices: rows }).then(
      (res) =>
        finish((_i, k) => {
          const a = res?.entries?.[k] as (EntryDetail & { error?: string }) | null | undefined;
          if (a && typeof a.error === "string" && !a.entry) return { error: a.error };
          return { detail: a ?? null };
        }),
      (err: Error) => finish(() => ({ error: err.message })),
    );
  }

  /** Fill drawn rows whose bodies arrived, a few milliseconds' worth per task: answers
   * often arrive together (a chunk of an exported page decoded at once), and rendering
   * all their markdown in one go would block a frame. */
  private fillSoon(i: number): void {
    this.toFill.add(i);
    if (this.fillTimer) return;
    this.fillTimer = setTimeout(() => {
      this.fillTimer = null;
      const t0 = performance.now();
      for (const j of this.toFill) {
        this.toFill.delete(j);
        const node = this.drawn.get(j);
        const got = this.loaded.get(j);
        if (node && got && !node.dataset.loaded) this.fillItem(node, got);
        if (performance.now() - t0 > FILL_BUDGET_MS) break;
      }
      this.schedule();
      if (this.toFill.size) this.fillSoon(this.toFill.values().next().value as number);
    }, 0);
  }

  private fillItem(item: HTMLElement, got: Loaded): void {
    const body = item.querySelector(".pnb-tx-body");
    if (!body) return;
    if ("error" in got) {
      body.textContent = `Could not load the entry: ${got.error}`;
      return;
    }
    const { detail } = got;
    const shown = detail ? withClass(entryBody(detail, this.actions), "pnb-tx-body") : el("div", "pnb-tx-body pnb-muted", "not available");
    revealHits(shown, this.hooks.query?.() ?? "");
    body.replaceWith(shown);
    item.dataset.loaded = "1";
  }
}

/** A drawn row's height, with the gap below it. */
function measure(node: HTMLElement): number {
  const gap = parseFloat(getComputedStyle(node).marginBottom) || 0;
  return node.offsetHeight + gap;
}

function withClass(node: HTMLElement, className: string): HTMLElement {
  node.classList.add(className);
  return node;
}
