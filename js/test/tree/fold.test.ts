import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { foldRuns, foldedRowCount, landmarks } from "../../src/tree/fold";
import { layoutLanes } from "../../src/tree/lanes";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

/** A chain 0..len-1 of alternating user/assistant/tool entries. */
function chain(len: number, from = 0, parent: string | null = null): Row[] {
  const kinds = [Kind.User, Kind.Assistant, Kind.ToolResult];
  return Array.from({ length: len }, (_, j) => ({
    id: id8(from + j),
    parent: j === 0 ? parent : id8(from + j - 1),
    kind: kinds[j % 3],
    tokens: 100,
  }));
}

function setup(rows: Row[], extra: Parameters<typeof columns>[1] = {}) {
  const c = columns(rows, extra);
  const t = buildTree(c);
  const v = visibleTree(c, t, "all");
  return { c, t, v };
}

// 0..9 on the main path; a fork at 4; side branch 10..17 off 4; main goes on 5..9.
const forked: Row[] = [...chain(10), ...chain(8, 10, id8(4))];

describe("landmarks", () => {
  it("marks roots, forks, leaves, compactions, labels, problems and kept entries", () => {
    const rows = chain(12);
    rows[6] = { ...rows[6], kind: Kind.Compaction };
    const { c, t, v } = setup(rows, { labelsById: { [id8(3)]: "checkpoint" } });
    c.problemAt.set(8, "orphan");
    const mark = landmarks(c, t, v, [10]);
    expect([...mark.keys()].filter((i) => mark[i])).toEqual([0, 3, 6, 8, 10, 11]);
  });
});

describe("foldRuns", () => {
  it("folds each landmark-free stretch into a run named by its first entry", () => {
    const { c, t, v } = setup(forked);
    const fold = foldRuns(c, t, v);
    // 0 root, 4 fork, 9 and 17 leaves stay; 1..3, 5..8 and 10..16 fold.
    expect(Array.from(fold)).toEqual([-1, 1, 1, 1, -1, 5, 5, 5, 5, -1, 10, 10, 10, 10, 10, 10, 10, -1]);
    expect(foldedRowCount(v, fold)).toBe(7);
  });

  it("leaves short runs, unfolded runs and kept entries open", () => {
    const { c, t, v } = setup(forked);
    const fold = foldRuns(c, t, v, { unfolded: new Set([10]), keep: [6] });
    expect(fold[10]).toBe(-1);
    expect(fold[16]).toBe(-1);
    expect(fold[6]).toBe(-1);
    // 5 alone (before the kept 6) is too short to fold; 7..8 too
    expect(fold[5]).toBe(-1);
    expect(fold[7]).toBe(-1);
    expect(fold[2]).toBe(1);
  });

  it("gives a 10k-entry chain with one label four rows", () => {
    const { c, t, v } = setup(chain(10000), { labelsById: { [id8(5000)]: "halfway" } });
    const fold = foldRuns(c, t, v);
    expect(foldedRowCount(v, fold)).toBe(5); // root, run, label, run, leaf
  });
});

describe("buildDisplay with folds", () => {
  it("draws a folded run as one node with the run's figures, and lays it out as one row", () => {
    const { c, t, v } = setup(forked);
    const fold = foldRuns(c, t, v);
    const d = buildDisplay(c, t, v, "tree", new Set(), fold);
    expect(d.m).toBe(7);
    const run = d.folds.get(10);
    expect(run).toMatchObject({ head: 10, tail: 16, size: 7, tokens: 100 });
    expect(run!.tools).toBe(2);
    const node = d.nodeOf[10];
    expect(d.isSeg[node]).toBe(1);
    for (let i = 11; i <= 16; i++) expect(d.nodeOf[i]).toBe(node);
    const L = layoutLanes(c, t, d);
    expect(L.maxY / L.dy + 1).toBe(7);
    // the side branch (fold row + leaf) still leaves the fork in its own lane
    expect(L.lane[d.nodeOf[17]]).toBe(L.lane[node]);
    expect(L.lane[node]).not.toBe(L.lane[d.nodeOf[9]]);
  });

  it("ignores folds in the branch view", () => {
    const { c, t, v } = setup(forked);
    const d = buildDisplay(c, t, v, "branches", new Set(), foldRuns(c, t, v));
    expect(d.folds.size).toBe(0);
  });
});

describe("foldText", () => {
  it("adds up the output tokens of a folded row (not a peak: each turn wrote its own)", async () => {
    const { foldText } = await import("../../src/tree/lanesdraw");
    const rows = chain(12).map((r, j) => ({ ...r, output: 1_000 * j }));
    const { c, t, v } = setup(rows);
    const d = buildDisplay(c, t, v, "tree", new Set(), foldRuns(c, t, v));
    const run = [...d.folds.values()].find((s) => s.size > 6)!;
    let sum = 0;
    for (let i = run.tail, k = 0; k < run.size; i = t.parent[i], k++) sum += rows[i].output;
    expect(run.output).toBe(sum);
    expect(foldText(run)).toMatch(new RegExp(` · ${sum >= 1000 ? `${Math.round(sum / 1000)}k` : sum} output tokens$`));
  });

  it("says how many entries and tool calls a folded row holds, and its peak tokens", async () => {
    const { foldText } = await import("../../src/tree/lanesdraw");
    const { c, t, v } = setup(forked);
    const d = buildDisplay(c, t, v, "tree", new Set(), foldRuns(c, t, v));
    expect(foldText(d.folds.get(10)!)).toBe("7 entries · 2 tool calls · peak 100 tokens");
    expect(foldText({ ...d.folds.get(10)!, tools: 1, tokens: 12345 })).toBe("7 entries · 1 tool call · peak 12k tokens");
  });

  it("gives the largest turn total of a run whose context grows, not the totals added", async () => {
    const { foldText } = await import("../../src/tree/lanesdraw");
    const { foldToFit } = await import("../../src/tree/aggregate");
    // each turn reads the whole context so far: totals 11k, 22k, 33k (summed: 66k)
    const rows = chain(12);
    for (const [k, j] of [1, 4, 7].entries()) rows[j] = { ...rows[j], tokens: 11_000 * (k + 1) };
    for (const j of [0, 2, 3, 5, 6, 8, 9, 10, 11]) rows[j] = { ...rows[j], tokens: 0 };
    const { c, t, v } = setup(rows);
    const fold = foldRuns(c, t, v);
    const d = buildDisplay(c, t, v, "tree", new Set(), fold);
    const run = [...d.folds.values()].find((s) => s.size > 6)!;
    expect(run.tokens).toBe(33_000);
    expect(foldText(run)).toContain("peak 33k tokens");
    const fit = foldToFit(c, t, v, 4);
    expect(fit.fold).not.toBeNull();
    expect(Math.max(...[...fit.summaries.values()].map((s) => s.tokens))).toBe(33_000);
  });
});
