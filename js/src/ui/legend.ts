// The legend: what each node shape and mark means, and the keyboard shortcuts.
import { drawIcon } from "./canvas";
import { Kind } from "../model/constants";
import { clear, el } from "./dom";

const STORE_KEY = "prime_nb.legend";

/** Whether the legend was left open. It starts shut: open, it covered a third of the
 * stage; the toolbar's Legend button opens it. */
export function legendWasOpen(): boolean {
  try {
    return globalThis.localStorage?.getItem(STORE_KEY) === "open";
  } catch {
    return false; // storage blocked (sandboxed output frames)
  }
}

/** Open or shut the legend, and remember that for the next widget. */
export function setLegendOpen(L: HTMLElement, open: boolean): void {
  L.classList.toggle("pnb-collapsed", !open);
  try {
    globalThis.localStorage?.setItem(STORE_KEY, open ? "open" : "closed");
  } catch {
    /* storage blocked: the state lasts as long as the view */
  }
}

export function toggleLegend(L: HTMLElement): void {
  setLegendOpen(L, L.classList.contains("pnb-collapsed"));
}

/** Fill ``L`` with the legend, open or shut as it was last left; its title toggles it. */
export function buildLegend(L: HTMLElement): void {
  clear(L);
  L.classList.toggle("pnb-collapsed", !legendWasOpen());
  const title = el("div", "pnb-legend-title", "Legend");
  title.title = "Show or hide the legend";
  title.addEventListener("click", () => toggleLegend(L));
  L.append(title);
  const grid = el("div", "pnb-legend-grid");
  const items: [number, string][] = [
    [Kind.User, "user"],
    [Kind.Assistant, "assistant"],
    [Kind.ToolResult, "tool result"],
    [Kind.Bash, "bash"],
    [Kind.CustomMessage, "custom message"],
    [Kind.Compaction, "compaction"],
    [Kind.BranchSummary, "branch summary"],
    [Kind.ModelChange, "model change"],
    [Kind.ThinkingChange, "thinking level"],
    [Kind.Label, "label entry"],
    [Kind.Other, "other"],
  ];
  for (const [kind, name] of items) {
    const row = el("div", "pnb-legend-item");
    const c = el("canvas", "pnb-legend-icon");
    const dpr = window.devicePixelRatio || 1;
    c.width = 14 * dpr;
    c.height = 14 * dpr;
    const g = c.getContext("2d");
    if (g) {
      g.scale(dpr, dpr);
      drawIcon(g, kind, 7, 7, 5);
    }
    row.append(c, el("span", "", name));
    grid.append(row);
  }
  const marks: [string, string][] = [
    ["pnb-mk-active", "active path"],
    ["pnb-mk-leaf", "active leaf"],
    ["pnb-mk-error", "error / aborted"],
    ["pnb-mk-cut", "context cut"],
    ["pnb-mk-kept", "kept after compaction"],
    ["pnb-mk-hit", "search hit"],
    ["pnb-mk-label", "label"],
    ["pnb-mk-seg", "segment (branches)"],
  ];
  for (const [cls, name] of marks) {
    const row = el("div", "pnb-legend-item");
    row.append(el("span", `pnb-mk ${cls}`), el("span", "", name));
    grid.append(row);
  }
  L.append(grid);
  L.append(
    el("div", "pnb-legend-keys", "drag: pan · ctrl/⌘+wheel: zoom (wheel scrolls the page) · click: open · ←↑→↓: move · a: active leaf · f: fit · v: view · /: search · n/N: next/previous hit"),
  );
}
