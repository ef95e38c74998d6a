// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildTree } from "../../src/model/tree";
import { Toolbar, type ToolbarActions } from "../../src/ui/toolbar";
import { FOLDED_NOTE, fillEntryTip, markNotes, tooltipPosition } from "../../src/ui/tipcontent";
import { columns, id8, type Row } from "../helpers";

describe("tooltipPosition", () => {
  it("sits below right of the pointer, flipped at the stage's edges", () => {
    expect(tooltipPosition({ x: 10, y: 10 }, 100, 50, 800, 600)).toEqual({ left: 24, top: 24 });
    expect(tooltipPosition({ x: 750, y: 580 }, 100, 50, 800, 600)).toEqual({ left: 636, top: 516 });
    expect(tooltipPosition({ x: 50, y: 30 }, 300, 200, 200, 100)).toEqual({ left: 4, top: 4 });
  });
});

describe("fillEntryTip", () => {
  it("fills the preview as text only, and not after the pointer moved on", async () => {
    const tip = document.createElement("div");
    let done = 0;
    const p = Promise.resolve({ role: "user", first_line: "<img src=x onerror=alert(1)>", tokens: 1200 });
    fillEntryTip(tip, { kind: Kind.User, label: "good", tokens: 0, error: true }, p, () => true, () => done++);
    await p;
    await Promise.resolve();
    expect(tip.querySelector("img")).toBeNull();
    expect(tip.querySelector(".pnb-tip-text")?.textContent).toBe("<img src=x onerror=alert(1)>");
    expect(tip.querySelector(".pnb-tip-foot")?.textContent).toContain("label: good");
    expect(tip.querySelector(".pnb-tip-foot")?.textContent).toContain("error");
    expect(done).toBe(1);

    const stale = document.createElement("div");
    fillEntryTip(stale, { kind: Kind.User, label: undefined, tokens: 0, error: false }, p, () => false, () => done++);
    await p;
    await Promise.resolve();
    expect(stale.querySelector(".pnb-tip-text")?.textContent).toBe("…");
    expect(done).toBe(1);
  });
});

describe("fillAggregateTip", () => {
  it("says what a Branches box stands for and how to open it", async () => {
    const { fillAggregateTip } = await import("../../src/ui/tipcontent");
    const tip = document.createElement("div");
    const a = { head: 0, kind: "span" as const, branches: 14, entries: 2300, tokens: 1_200_000, output: 84_000, errors: 2, labels: 0, forks: 12, compactions: 3, subtrees: 1, onActive: true, from: 1, to: 2300 };
    fillAggregateTip(tip, a);
    expect(tip.textContent).toContain("Entries 1-2,300 of the active path");
    expect(tip.textContent).toContain("12 forks");
    expect(tip.textContent).toContain("84.0k output tokens (what its turns wrote, added up)");
    expect(tip.textContent).toContain("3 compactions · 2 errors");
    expect(tip.textContent).toContain("click to open");
    fillAggregateTip(tip, { ...a, kind: "roots", subtrees: 23 });
    expect(tip.querySelector(".pnb-tip-head")?.textContent).toBe("23 conversations with a root of their own");
  });
});

describe("marks explain themselves", () => {
  it("a compaction's band and the context cut above the first kept entry, in words", () => {
    const rows: Row[] = [
      { id: id8(0), parent: null, kind: Kind.User },
      { id: id8(1), parent: id8(0), kind: Kind.Assistant },
      { id: id8(2), parent: id8(1), kind: Kind.Compaction },
      { id: id8(3), parent: id8(2), kind: Kind.User },
    ];
    const c = columns(rows, { compactionsById: [[id8(2), id8(1), 5000]] });
    expect(markNotes(c, 2).join(" ")).toMatch(/peach band: a compaction/);
    expect(markNotes(c, 1).join(" ")).toMatch(/orange dashed rule above: the context cut/);
    expect(markNotes(c, 3)).toEqual([]);
  });

  it("a folded row's hollow pill, and the status line's figures", () => {
    expect(FOLDED_NOTE).toMatch(/hollow pill/);
    const tb = new Toolbar({} as ToolbarActions);
    const c = columns([{ id: id8(0), parent: null, kind: Kind.User }]);
    tb.showStatus(c, buildTree(c), 1);
    expect(tb.status.title).toMatch(/shown: what the filter lets through/);
  });
});

describe("a run box's tip", () => {
  it("gives the box's title whole, as text, which the box fits to two lines", async () => {
    const { fillNodeTip } = await import("../../src/ui/tipcontent");
    const { buildDisplay } = await import("../../src/model/display");
    const { visibleTree } = await import("../../src/model/filter");
    const rows: Row[] = [{ id: id8(0), parent: null, kind: Kind.User }];
    for (let j = 1; j < 6; j++) rows.push({ id: id8(j), parent: id8(j - 1), kind: j % 2 ? Kind.Assistant : Kind.User });
    const c = columns(rows);
    const t = buildTree(c);
    const disp = buildDisplay(c, t, visibleTree(c, t, "all"), "branches", new Set());
    const d = Array.from({ length: disp.m }, (_, j) => j).find((j) => disp.isSeg[j] === 1)!;
    const long = "Why is parse_dates so slow on big files, and what would make it <b>faster</b> on the 200k-row one?";
    const asked: number[] = [];
    const preview = (i: number) => {
      asked.push(i);
      return Promise.resolve({ role: "user", first_line: long, tokens: 0 });
    };
    const tip = document.createElement("div");
    let placed = 0;
    expect(fillNodeTip(tip, c, disp, d, false, preview, () => true, () => placed++)).toBe(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(asked).toEqual([disp.segments.get(disp.entry[d])!.firstUser]);
    expect(tip.querySelector(".pnb-tip-title")?.textContent).toBe(long);
    expect(tip.querySelector("b")).toBeNull();
    expect(placed).toBe(1);
  });
});
