import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { moveTarget } from "../../src/ui/navigate";
import { buildTree } from "../../src/model/tree";
import { columns, id8 } from "../helpers";

// 0 -> 1 -> {2 -> 3, 4 -> 5}; the active leaf is 5 (the last row)
const rows = [
  { id: id8(0), parent: null, kind: Kind.User, time: 0 },
  { id: id8(1), parent: id8(0), kind: Kind.Assistant, time: 1 },
  { id: id8(2), parent: id8(1), kind: Kind.User, time: 2 },
  { id: id8(3), parent: id8(2), kind: Kind.Assistant, time: 3 },
  { id: id8(4), parent: id8(1), kind: Kind.User, time: 4 },
  { id: id8(5), parent: id8(4), kind: Kind.Assistant, time: 5 },
];
const c = columns(rows);
const t = buildTree(c);
const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
const node = (i: number): number => d.nodeOf[i];
const entry = (n: number): number => (n < 0 ? -1 : d.entry[n]);
const move = (a: Parameters<typeof moveTarget>[0], from: number): number =>
  entry(moveTarget(a, d, from < 0 ? -1 : node(from), t.onActive, node(t.activeLeaf)));

describe("moveTarget", () => {
  it("goes up to the parent, and from nothing to the active leaf", () => {
    expect(move("parent", 3)).toBe(2);
    expect(move("parent", -1)).toBe(5);
    expect(move("parent", 0)).toBe(-1);
  });

  it("goes down along the active path at a fork, from nothing to the root", () => {
    expect(move("child", 1)).toBe(4);
    expect(move("child", -1)).toBe(0);
    expect(move("child", 5)).toBe(-1);
  });

  it("steps between siblings and stops at the ends", () => {
    const sibs = [move("nextSibling", 2), move("previousSibling", 4)];
    expect(sibs.sort()).toEqual([2, 4].sort());
    expect(move("nextSibling", 0)).toBe(-1);
    expect(move("previousSibling", -1)).toBe(-1);
  });

  it("leaves other actions to the view", () => {
    expect(move("fit", 2)).toBe(-1);
  });
});
