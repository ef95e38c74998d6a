/**
 * The transcript view: one branch read top to bottom, the way the agent's own HTML export
 * reads. Every entry of the branch gets a header at once (kind, node line); its full
 * content is asked for only when it scrolls near the screen, so a branch of thousands of
 * entries opens at once and costs requests only for what is read.
 */

import type { Requester } from "./comm";
import { KIND_NAMES, KIND_STYLES, Kind } from "./constants";

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
import { idAt, type Columns } from "./data";
import { clear, el } from "./dom";
import { entryBody, type EntryDetail, type PanelActions } from "./panel";
import type { Tree } from "./tree";

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

export class Transcript {
  readonly el: HTMLDivElement;
  private items = new Map<number, HTMLElement>();
  private observer: IntersectionObserver | null = null;
  private generation = 0;

  constructor(
    private req: Requester,
    private actions: PanelActions,
    /** the node line of an entry, if known (else it is asked for) */
    private line: (i: number) => string | undefined,
    private select: (i: number) => void,
  ) {
    this.el = el("div", "pnb-transcript pnb-hidden");
    this.el.tabIndex = -1;
  }

  dispose(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  get shown(): boolean {
    return !this.el.classList.contains("pnb-hidden");
  }

  hide(): void {
    this.el.classList.add("pnb-hidden");
    this.dispose();
  }

  /** Show ``path`` (entry indices, root first); entries failing ``keep`` are left out. */
  show(path: number[], cols: Columns, keep: (i: number) => boolean, selected: number): void {
    this.generation++;
    this.dispose();
    this.el.classList.remove("pnb-hidden");
    clear(this.el);
    this.items.clear();
    const rows = path.filter(keep);
    const head = el("div", "pnb-tx-head");
    head.append(
      el("span", "pnb-tx-title", `Transcript · ${rows.length.toLocaleString("en-US")} entries on this branch`),
      el("span", "pnb-muted pnb-small", "click an entry's header to select it in the tree"),
    );
    this.el.append(head);
    this.observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((seen) => this.load(seen), { root: this.el, rootMargin: "800px 0px" });
    for (const i of rows) {
      const item = el("article", "pnb-tx-item");
      item.dataset.index = String(i);
      item.dataset.entryId = idAt(cols, i);
      item.style.setProperty("--pnb-badge", KIND_STYLES[cols.kind[i]]?.color ?? "#888");
      const bar = el("header", "pnb-tx-bar");
      bar.append(el("span", "pnb-tx-kind", KIND_NAMES[cols.kind[i]] ?? "entry"), el("span", "pnb-tx-line", this.line(i) ?? ""));
      const label = cols.labels.get(i);
      if (label) bar.append(el("span", "pnb-label-tag", label));
      bar.addEventListener("click", () => this.select(i));
      const read = READ_KINDS.has(cols.kind[i]);
      if (read) item.append(bar, el("div", "pnb-tx-body pnb-muted pnb-small", "…"));
      else {
        item.classList.add("pnb-tx-note");
        item.append(bar);
      }
      if (i === selected) item.classList.add("pnb-tx-selected");
      this.items.set(i, item);
      this.el.append(item);
      if (read) this.observer?.observe(item);
    }
    if (!this.observer) for (const i of rows.filter((r) => READ_KINDS.has(cols.kind[r])).slice(0, 50)) this.fill(i);
  }

  /** Mark ``i`` selected and scroll it into view. */
  focus(i: number): void {
    for (const item of this.el.querySelectorAll(".pnb-tx-selected")) item.classList.remove("pnb-tx-selected");
    const item = this.items.get(i);
    if (!item) return;
    item.classList.add("pnb-tx-selected");
    item.scrollIntoView({ block: "center" });
  }

  /** Node lines arrived: fill the headers that were waiting for them. */
  refreshLines(): void {
    for (const [i, item] of this.items) {
      const line = item.querySelector(".pnb-tx-line");
      if (line && !line.textContent) line.textContent = this.line(i) ?? "";
    }
  }

  private load(seen: IntersectionObserverEntry[]): void {
    for (const s of seen) {
      if (!s.isIntersecting) continue;
      const i = Number((s.target as HTMLElement).dataset.index);
      this.observer?.unobserve(s.target);
      this.fill(i);
    }
  }

  private fill(i: number): void {
    const item = this.items.get(i);
    if (!item) return;
    const gen = this.generation;
    this.req.request<EntryDetail | null>("entry", { index: i }).then(
      (detail) => {
        if (gen !== this.generation) return;
        const body = item.querySelector(".pnb-tx-body");
        if (!body) return;
        body.replaceWith(detail ? withClass(entryBody(detail, this.actions), "pnb-tx-body") : el("div", "pnb-tx-body pnb-muted", "not available"));
        item.dataset.loaded = "1";
      },
      (err: Error) => {
        if (gen !== this.generation) return;
        const body = item.querySelector(".pnb-tx-body");
        if (body) body.textContent = `Could not load the entry: ${err.message}`;
      },
    );
  }
}

function withClass(node: HTMLElement, className: string): HTMLElement {
  node.classList.add(className);
  return node;
}
