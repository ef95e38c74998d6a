// The header (name, working directory, status line) and the toolbar (view, filter, search, actions).
import { FILTERS, VIEWS, type FilterMode, type ViewMode } from "../model/constants";
import type { Columns } from "../model/data";
import type { Tree } from "../model/tree";
import { button, clear, el } from "./dom";

/** The status line's figures, in words (its hover). */
export const STATUS_KEY =
  "entries: in the file · shown: what the filter lets through (Default hides bookkeeping such as model changes) · leaves: branch ends · compactions: context summaries";

const FILTER_LABELS: Record<FilterMode, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};

/** What the toolbar's controls ask the view to do. */
export interface ToolbarActions {
  setView(view: ViewMode): void;
  setFilter(filter: string): void;
  /** The query, typed (debounced) or confirmed with Enter. */
  setSearch(query: string): void;
  /** Enter on a new query: search, then go to the first hit when the answer comes. */
  confirmSearch(query: string): void;
  /** Enter on an unchanged query, or the arrows: step through the hits. */
  stepHit(step: number): void;
  currentSearch(): string;
  fit(): void;
  goActive(): void;
  toggleLegend(): void;
  /** Escape in the search box: back to the tree. */
  leaveSearch(): void;
  /** The "N problems" button: list them. */
  showProblems(): void;
}

/** The DOM of the header and toolbar; ``sync`` writes state into the controls. */
export class Toolbar {
  readonly header: HTMLDivElement;
  readonly bar: HTMLDivElement;
  readonly status: HTMLSpanElement;
  readonly problems: HTMLButtonElement;
  readonly searchInput: HTMLInputElement;
  readonly searchCount: HTMLSpanElement;
  private title: HTMLDivElement;
  private filterSelect: HTMLSelectElement;
  private viewButtons: Record<ViewMode, HTMLButtonElement>;
  /** Fit: for the graph views only (the Transcript has nothing to fit). */
  private fitButton: HTMLButtonElement;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private viewTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(a: ToolbarActions) {
    this.header = el("div", "pnb-header");
    this.title = el("div", "pnb-title");
    this.status = el("span", "pnb-status");
    this.problems = button("", "Problems the loader found in the file (with line numbers)", () => a.showProblems(), "pnb-problems-btn pnb-hidden");
    this.header.append(this.title, this.status, this.problems);

    this.bar = el("div", "pnb-toolbar");
    const seg = el("div", "pnb-seg");
    this.viewButtons = {
      tree: button("Tree", "Every entry (v toggles)", () => this.setViewSoon(a, "tree"), "pnb-seg-btn"),
      branches: button("Branches", "One box per run without a fork (v toggles)", () => this.setViewSoon(a, "branches"), "pnb-seg-btn"),
      transcript: button("Transcript", "The selected branch, read top to bottom (v toggles)", () => this.setViewSoon(a, "transcript"), "pnb-seg-btn"),
    };
    seg.append(this.viewButtons.tree, this.viewButtons.branches, this.viewButtons.transcript);
    this.filterSelect = el("select", "pnb-select");
    this.filterSelect.title = "Filter, as in the agent's tree view";
    for (const f of FILTERS) {
      const o = el("option", "", FILTER_LABELS[f]);
      o.value = f;
      this.filterSelect.append(o);
    }
    this.filterSelect.addEventListener("change", () => a.setFilter(this.filterSelect.value));

    const searchBox = el("div", "pnb-search");
    this.searchInput = el("input", "pnb-search-input");
    this.searchInput.type = "search";
    this.searchInput.placeholder = "Search messages…";
    this.searchInput.spellcheck = false;
    this.searchInput.addEventListener("input", () => {
      this.cancelTimer();
      this.timer = setTimeout(() => a.setSearch(this.searchInput.value), 180);
    });
    this.searchInput.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        this.cancelTimer();
        if (a.currentSearch() !== this.searchInput.value) a.confirmSearch(this.searchInput.value);
        else a.stepHit(ev.shiftKey ? -1 : 1);
      } else if (ev.key === "Escape") {
        // Escape ends the search: the box, the count and the highlights all go, then the
        // keys go back to the view. A query still waiting for its debounce is dropped.
        ev.preventDefault();
        this.cancelTimer();
        this.searchInput.value = "";
        if (a.currentSearch() !== "") a.setSearch("");
        a.leaveSearch();
      }
      ev.stopPropagation();
    });
    this.searchCount = el("span", "pnb-search-count");
    searchBox.append(
      this.searchInput,
      this.searchCount,
      button("‹", "Previous hit (shift+n)", () => a.stepHit(-1), "pnb-icon-btn pnb-prev"),
      button("›", "Next hit (n)", () => a.stepHit(1), "pnb-icon-btn pnb-next"),
    );
    this.bar.append(
      seg,
      this.filterSelect,
      searchBox,
      el("div", "pnb-spacer"),
      (this.fitButton = button("Fit", "Fit to view (f)", () => a.fit())),
      button("Active leaf", "Go to the active leaf (a)", () => a.goActive()),
      button("Legend", "Show or hide the legend", () => a.toggleLegend()),
    );
  }

  /** A view button was clicked. The Transcript opens in the next task: the click is
   * dispatched in the same task as the host's own handling of the press (in JupyterLab
   * the notebook makes the output's cell active), so building the Transcript there too
   * blocked one frame with both; in a task of its own each blocks less. The other views
   * switch at once, and a click on one of them wins over a Transcript not opened yet. */
  private setViewSoon(a: ToolbarActions, v: ViewMode): void {
    if (this.viewTimer) clearTimeout(this.viewTimer);
    this.viewTimer = null;
    if (v !== "transcript") {
      a.setView(v);
      return;
    }
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null;
      a.setView(v);
    }, 0);
  }

  dispose(): void {
    this.cancelTimer();
    if (this.viewTimer) clearTimeout(this.viewTimer);
  }

  /** Show the session's name and folder, the view and filter in force, and the query
   * (unless the user is typing in the box). */
  sync(s: { name: string; cwd: string; view: ViewMode; filter: FilterMode; search: string }): void {
    this.filterSelect.value = s.filter;
    for (const v of VIEWS) this.viewButtons[v].classList.toggle("pnb-on", v === s.view);
    this.fitButton.disabled = s.view === "transcript";
    this.fitButton.title = s.view === "transcript" ? "Fit applies to the Tree and Branches views" : "Fit to view (f)";
    if (document.activeElement !== this.searchInput && this.searchInput.value !== s.search) this.searchInput.value = s.search;
    clear(this.title);
    this.title.append(el("span", "pnb-name", s.name || "Session"));
    if (s.cwd) this.title.append(el("span", "pnb-cwd", s.cwd));
  }

  /** The status line ("1,000 entries · 812 shown · 17 leaves · 3 compactions") and the
   * problem count. */
  showStatus(cols: Columns, tree: Tree, shown: number): void {
    let leaves = 0;
    for (let i = 0; i < tree.n; i++) if (tree.childStart[i + 1] === tree.childStart[i]) leaves++;
    const c = cols.compactions.length;
    const parts = [
      `${cols.n.toLocaleString("en-US")} entries`,
      `${shown.toLocaleString("en-US")} shown`,
      `${leaves.toLocaleString("en-US")} ${leaves === 1 ? "leaf" : "leaves"}`,
    ];
    if (c) parts.push(`${c} compaction${c > 1 ? "s" : ""}`);
    this.status.textContent = parts.join(" · ");
    this.status.title = STATUS_KEY;
    this.showProblemCount(cols.problemCount);
  }

  /** "N problems" when the loader reported any (hidden otherwise). */
  showProblemCount(n: number): void {
    this.problems.textContent = `⚠ ${n.toLocaleString("en-US")} problem${n === 1 ? "" : "s"}`;
    this.problems.classList.toggle("pnb-hidden", n <= 0);
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
