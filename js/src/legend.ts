// The legend: what each node shape and mark means, and the keyboard shortcuts.
import { drawIcon } from "./render";
import { Kind } from "./constants";
import { clear, el } from "./dom";

/** Fill ``L`` with the legend; its title toggles it open and shut. */
export function buildLegend(L: HTMLElement): void {
  clear(L);
  const title = el("div", "pnb-legend-title", "Legend");
  title.title = "Show or hide the legend";
  title.addEventListener("click", () => L.classList.toggle("pnb-collapsed"));
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
    el("div", "pnb-legend-keys", "drag: pan · wheel: zoom · click: open · ←↑→↓: move · a: active leaf · f: fit · v: view · /: search · n/N: next/previous hit"),
  );
}
