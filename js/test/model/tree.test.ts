import { describe, expect, it } from "vitest";
import { buildTree, childrenOf, leaves, pathTo } from "../../src/model/tree";
import { columns, id8 } from "../helpers";

describe("buildTree", () => {
  it("orders children by time, then file index", () => {
    const c = columns([
      { id: id8(0), parent: null, kind: 0, time: 0 },
      { id: id8(1), parent: id8(0), kind: 1, time: 5 },
      { id: id8(2), parent: id8(0), kind: 1, time: 3 },
      { id: id8(3), parent: id8(0), kind: 1, time: 3 },
      { id: id8(4), parent: id8(2), kind: 0, time: 6 },
    ]);
    const t = buildTree(c);
    expect(Array.from(childrenOf(t, 0))).toEqual([2, 3, 1]);
    expect(Array.from(t.order)).toEqual([0, 2, 4, 3, 1]);
    expect(leaves(t)).toEqual([1, 3, 4]);
  });

  it("marks the path to the active leaf (last entry in file order)", () => {
    const c = columns([
      { id: id8(0), parent: null, kind: 0, time: 0 },
      { id: id8(1), parent: id8(0), kind: 1, time: 9 },
      { id: id8(2), parent: id8(0), kind: 1, time: 1 },
    ]);
    const t = buildTree(c);
    expect(t.activeLeaf).toBe(2);
    expect(Array.from(t.onActive)).toEqual([1, 0, 1]);
    expect(pathTo(t, 2)).toEqual([0, 2]);
  });

  it("turns parent cycles and orphans into roots without losing entries", () => {
    const c = columns([
      { id: id8(0), parent: null, kind: 0 },
      { id: id8(1), parent: id8(2), kind: 1 },
      { id: id8(2), parent: id8(1), kind: 1 },
      { id: id8(3), parent: "missing!", kind: 0 },
    ]);
    const t = buildTree(c);
    expect(new Set(t.order).size).toBe(4);
    expect(t.roots.length).toBe(3);
    expect(t.parent[1]).toBe(-1);
    expect(t.parent[2]).toBe(1);
  });

  it("handles a 100k chain without recursion", () => {
    const n = 100_000;
    const rows = Array.from({ length: n }, (_, i) => ({ id: id8(i), parent: i ? id8(i - 1) : null, kind: i % 3 }));
    const t = buildTree(columns(rows));
    expect(t.order[n - 1]).toBe(n - 1);
    expect(t.onActive[0]).toBe(1);
  });
});
