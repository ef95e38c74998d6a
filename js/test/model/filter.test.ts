import { describe, expect, it } from "vitest";
import { Flag, Kind } from "../../src/model/constants";
import { matchesQuery, passes, queryWords, searchTexts, visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { columns, id8 } from "../helpers";

// 0 user, 1 model_change, 2 assistant (tool-only), 3 tool result, 4 assistant (text),
// 5 label entry, 6 user (labelled), 7 assistant tool-only with error, 8 custom (hidden leaf? no: active leaf)
const rows = [
  { id: id8(0), parent: null, kind: Kind.User },
  { id: id8(1), parent: id8(0), kind: Kind.ModelChange },
  { id: id8(2), parent: id8(1), kind: Kind.Assistant, flags: Flag.ToolOnly | Flag.ToolCalls },
  { id: id8(3), parent: id8(2), kind: Kind.ToolResult },
  { id: id8(4), parent: id8(3), kind: Kind.Assistant },
  { id: id8(5), parent: id8(4), kind: Kind.Label },
  { id: id8(6), parent: id8(5), kind: Kind.User },
  { id: id8(7), parent: id8(6), kind: Kind.Assistant, flags: Flag.ToolOnly | Flag.Error },
  { id: id8(8), parent: id8(7), kind: Kind.Custom },
];
const c = columns(rows, { labelsById: { [id8(6)]: "important" } });
const t = buildTree(c);
const shown = (mode: Parameters<typeof visibleTree>[2]): number[] => {
  const v = visibleTree(c, t, mode);
  return Array.from(v.shown).flatMap((s, i) => (s ? [i] : []));
};

describe("filters (the agent's tree view rules)", () => {
  it("default hides bookkeeping and tool-only assistants, keeps errors and the active leaf", () => {
    expect(shown("default")).toEqual([0, 3, 4, 6, 7, 8]);
  });
  it("no-tools also hides tool results", () => {
    expect(shown("no-tools")).toEqual([0, 4, 6, 7, 8]);
  });
  it("user-only", () => {
    expect(shown("user-only")).toEqual([0, 6, 8]);
  });
  it("labeled-only", () => {
    expect(shown("labeled-only")).toEqual([6, 8]);
  });
  it("all still hides tool-only assistants without error", () => {
    expect(shown("all")).toEqual([0, 1, 3, 4, 5, 6, 7, 8]);
  });
  it("forced entries are shown", () => {
    const v = visibleTree(c, t, "user-only", [2]);
    expect(v.shown[2]).toBe(1);
  });
  it("children of hidden entries attach to the nearest shown ancestor", () => {
    const v = visibleTree(c, t, "default");
    expect(v.vparent[3]).toBe(0); // 2 and 1 hidden
    expect(v.vparent[6]).toBe(4); // 5 hidden
    expect(v.vparent[0]).toBe(-1);
  });
  it("passes() matches the table for single entries", () => {
    expect(passes(c, 1, "all")).toBe(true);
    expect(passes(c, 2, "all")).toBe(false);
    expect(passes(c, 7, "default")).toBe(true);
  });
});

describe("search", () => {
  it("splits on white space, lower-cases, needs every word", () => {
    expect(queryWords("  Foo\tBAR  ")).toEqual(["foo", "bar"]);
    expect(matchesQuery("the foo and the bar", ["foo", "bar"])).toBe(true);
    expect(matchesQuery("the Foo only", ["foo", "bar"])).toBe(false);
    expect(matchesQuery("anything", [])).toBe(false);
  });
  it("searchTexts returns matching indices", () => {
    expect(searchTexts(["Alpha beta", null, "beta gamma ALPHA", "alp"], "alpha BETA")).toEqual([0, 2]);
    expect(searchTexts(["x"], "   ")).toEqual([]);
  });
});
