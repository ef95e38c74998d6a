import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { layoutLanes } from "../../src/tree/lanes";
import { Rank, buildLaneScene, eachSpanIn, textRows } from "../../src/tree/lanescene";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

function laid(rows: Row[], extra: Parameters<typeof columns>[1] = {}) {
  const c = columns(rows, extra);
  const t = buildTree(c);
  const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
  const L = layoutLanes(c, t, d);
  const at = (i: number) => ({ lane: L.lane[d.nodeOf[i]], row: L.row[d.nodeOf[i]] });
  return { c, t, d, L, at };
}

// 0 -> 1 -> 2 (fork) -> {3 -> 4 (old side branch), 5 -> 6 -> 7 (active, last row)}
const forked: Row[] = [
  { id: id8(0), parent: null, kind: Kind.User, time: 0 },
  { id: id8(1), parent: id8(0), kind: Kind.Assistant, time: 1 },
  { id: id8(2), parent: id8(1), kind: Kind.User, time: 2 },
  { id: id8(3), parent: id8(2), kind: Kind.Assistant, time: 3 },
  { id: id8(4), parent: id8(3), kind: Kind.User, time: 4 },
  { id: id8(5), parent: id8(2), kind: Kind.Assistant, time: 5 },
  { id: id8(6), parent: id8(5), kind: Kind.User, time: 6 },
  { id: id8(7), parent: id8(6), kind: Kind.Assistant, time: 7 },
];

describe("layoutLanes", () => {
  it("puts the active path in lane 0, top to bottom, ending on the last row", () => {
    const { at, L } = laid(forked);
    for (const i of [0, 1, 2, 5, 6, 7]) expect(at(i).lane).toBe(0);
    expect(at(7).row).toBe(7);
    for (const i of [3, 4]) expect(at(i).lane).toBe(1);
    expect(L.lanes).toBe(2);
  });

  it("keeps a side branch's rows together, right after its fork", () => {
    const { at } = laid(forked);
    expect([at(3).row, at(4).row]).toEqual([3, 4]);
    expect(at(5).row).toBe(5);
  });

  it("one row per node, each row once", () => {
    const { L, d } = laid(forked);
    const seen = new Set(Array.from(L.byRow));
    expect(seen.size).toBe(d.m);
    for (let r = 0; r < d.m; r++) expect(L.row[L.byRow[r]]).toBe(r);
  });

  it("puts the text right of every lane open on the row", () => {
    const { L, at } = laid(forked);
    // rows 3-4: lanes 0 (waiting for 5) and 1 are open; row 0: only lane 0
    expect(L.textX[at(3).row]).toBeGreaterThan(L.x[L.byRow[at(3).row]]);
    expect(L.textX[at(3).row]).toBeGreaterThan(L.textX[at(0).row]);
    expect(L.textX[at(7).row]).toBe(L.textX[at(0).row]);
  });

  it("reuses lanes: a comb of leaves stays two lanes wide", () => {
    const rows: Row[] = [{ id: id8(0), parent: null, kind: Kind.User, time: 0 }];
    for (let k = 1; k < 200; k += 2) {
      rows.push({ id: id8(k), parent: id8(k - 1), kind: Kind.Assistant, time: k });
      rows.push({ id: id8(k + 1), parent: id8(k - 1), kind: Kind.User, time: k + 1 });
    }
    // the active leaf is the last row added (a user leaf); make the chain the active path
    const { L } = laid(rows);
    expect(L.lanes).toBeLessThanOrEqual(2);
  });

  it("never gives lane 0 to an orphan root, and draws it after the active tree", () => {
    const rows: Row[] = [
      { id: id8(0), parent: null, kind: Kind.User, time: 5 },
      { id: id8(1), parent: null, kind: Kind.User, time: 0 },
      { id: id8(2), parent: id8(1), kind: Kind.Assistant, time: 1 },
    ];
    const { at } = laid(rows); // the active leaf is the last row: 2
    expect(at(1).lane).toBe(0);
    expect(at(0).lane).toBeGreaterThan(0);
    expect(at(0).row).toBe(2);
  });

  it("lays out nothing for an empty display", () => {
    const { L } = laid([]);
    expect(L.lanes).toBe(0);
    expect(L.byRow.length).toBe(0);
  });
});

describe("lane scene", () => {
  it("finds the long active line crossing the side branch's rows", () => {
    const { c, t, d, L } = laid(forked);
    const s = buildLaneScene(c, t, d, L);
    const lines: [number, number, number, number][] = [];
    eachSpanIn(s, 3, 4, (l, a, b, act) => lines.push([l, a, b, act]));
    // lane 0: 2 -> 5 spans rows 2..5; lane 1: 3 -> 4
    expect(lines).toContainEqual([0, 2, 5, 1]);
    expect(lines).toContainEqual([1, 3, 4, 0]);
    expect(lines.length).toBe(2);
  });

  it("ranks branch starts, leaves and marked rows", () => {
    const { c, t, d, L, at } = laid(forked, { labelsById: { [id8(1)]: "x" } });
    const s = buildLaneScene(c, t, d, L);
    expect(s.rank[at(0).row]).toBe(Rank.BranchStart);
    expect(s.rank[at(3).row]).toBe(Rank.BranchStart);
    expect(s.rank[at(4).row]).toBe(Rank.Leaf);
    expect(s.rank[at(1).row]).toBe(Rank.Marked);
    expect(s.rank[at(6).row]).toBe(Rank.None);
  });

  it("gives every row its text when rows have room, else landmarks spaced apart", () => {
    const { c, t, d, L } = laid(forked);
    const s = buildLaneScene(c, t, d, L);
    expect(textRows(s, 0, 7, 20, 14)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const dense = textRows(s, 0, 7, 4, 14);
    expect(dense.length).toBeGreaterThan(0);
    for (let j = 1; j < dense.length; j++) expect((dense[j] - dense[j - 1]) * 4).toBeGreaterThanOrEqual(14);
    for (const r of dense) expect(s.rank[r]).toBeGreaterThan(0);
  });
});
