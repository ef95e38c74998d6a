import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { layoutDisplay } from "../../src/branches/layout";
import { buildEdges, bucketize, compactionMarks, lowerBound } from "../../src/branches/scene";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

// root -> 1 -> 2 -> 3 (fork) -> {4 -> 5, 6 -> 7 -> 8}
const rows = [
  { id: id8(0), parent: null, kind: Kind.User, time: 0 },
  { id: id8(1), parent: id8(0), kind: Kind.Assistant, time: 1, tokens: 10 },
  { id: id8(2), parent: id8(1), kind: Kind.User, time: 2 },
  { id: id8(3), parent: id8(2), kind: Kind.Assistant, time: 3, tokens: 20 },
  { id: id8(4), parent: id8(3), kind: Kind.User, time: 4 },
  { id: id8(5), parent: id8(4), kind: Kind.Assistant, time: 5 },
  { id: id8(6), parent: id8(3), kind: Kind.User, time: 6 },
  { id: id8(7), parent: id8(6), kind: Kind.Compaction, time: 7 },
  { id: id8(8), parent: id8(7), kind: Kind.Assistant, time: 8, flags: 1 },
];
const c = columns(rows, { compactionsById: [[id8(7), id8(2), 5000]] });
const t = buildTree(c);
const v = visibleTree(c, t, "all");

describe("display graph", () => {
  it("tree view: one node per shown entry", () => {
    const d = buildDisplay(c, t, v, "tree", new Set());
    expect(d.m).toBe(9);
    expect(Array.from(d.isSeg).every((x) => x === 0)).toBe(true);
    expect(d.dparent[d.nodeOf[4]]).toBe(d.nodeOf[3]);
  });

  it("branches view: runs without a fork become segments", () => {
    const d = buildDisplay(c, t, v, "branches", new Set());
    // a compaction starts a run of its own: 6 | 7 -> 8
    expect(d.m).toBe(4);
    const heads = Array.from(d.entry).sort();
    expect(heads).toEqual([0, 4, 6, 7]);
    const s0 = d.segments.get(0);
    expect(s0?.size).toBe(4);
    expect(s0?.tail).toBe(3);
    expect(s0?.tokens).toBe(20); // the larger of 10 and 20: turn totals are not added
    expect(s0?.firstUser).toBe(0);
    expect(s0?.errors).toBe(0);
    expect(d.segments.get(7)?.compactions).toBe(1);
    expect(d.segments.get(7)?.flags).toBe(1);
    expect(d.segments.get(7)?.errors).toBe(1);
    expect(d.segments.get(7)?.firstUser).toBe(-1);
    expect(d.segments.get(6)?.size).toBe(1);
    expect(d.segments.get(6)?.onActive).toBe(true);
    expect(d.segments.get(4)?.onActive).toBe(false);
    // members map to their segment's node
    expect(d.nodeOf[2]).toBe(d.nodeOf[0]);
    expect(d.dparent[d.nodeOf[4]]).toBe(d.nodeOf[0]);
  });

  it("expanding a segment shows its entries", () => {
    const d = buildDisplay(c, t, v, "branches", new Set([0]));
    expect(d.m).toBe(7);
    expect(d.expandedHeads).toEqual([0]);
    expect(d.isSeg[d.nodeOf[0]]).toBe(0);
    expect(d.dparent[d.nodeOf[1]]).toBe(d.nodeOf[0]);
    expect(d.isSeg[d.nodeOf[4]]).toBe(1);
  });

  it("segments follow the filter (hidden entries do not split runs)", () => {
    const vu = visibleTree(c, t, "user-only");
    const d = buildDisplay(c, t, vu, "branches", new Set());
    // shown: 0, 2, 4, 6 and the active leaf 8; 0 -> 2 forks into 4 and 6 -> 8
    expect(d.segments.get(0)?.size).toBe(2);
    expect(d.segments.get(6)?.size).toBe(2);
  });
});

describe("layout", () => {
  it("places children below parents and siblings apart", () => {
    const d = buildDisplay(c, t, v, "tree", new Set());
    const L = layoutDisplay(d, 24, 30);
    const y = (i: number): number => L.y[d.nodeOf[i]];
    const x = (i: number): number => L.x[d.nodeOf[i]];
    expect(y(0)).toBe(0);
    expect(y(1)).toBe(30);
    expect(y(4)).toBe(y(6));
    expect(x(4)).not.toBe(x(6));
    expect(x(4)).toBeLessThan(x(6)); // older child on the left
    expect(L.maxY).toBe(6 * 30);
  });

  it("lays out forests and 100k chains", () => {
    const n = 100_000;
    const big = Array.from({ length: n }, (_, i) => ({
      id: id8(i),
      parent: i === 0 || i === 50 ? null : id8(i - 1),
      kind: i % 3,
    }));
    const cc = columns(big);
    const tt = buildTree(cc);
    const d = buildDisplay(cc, tt, visibleTree(cc, tt, "all"), "tree", new Set());
    const t0 = performance.now();
    const L = layoutDisplay(d, 24, 30);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(L.x[d.nodeOf[0]]).not.toBe(L.x[d.nodeOf[50]]);
    expect(L.maxY).toBe((n - 51) * 30);
  });

  it("handles an empty session", () => {
    const cc = columns([]);
    const tt = buildTree(cc);
    const d = buildDisplay(cc, tt, visibleTree(cc, tt, "default"), "tree", new Set());
    expect(d.m).toBe(0);
    expect(layoutDisplay(d, 24, 30).x.length).toBe(0);
  });
});

describe("scene helpers", () => {
  it("buckets nodes by kind and segments last, sorted by y", () => {
    const d = buildDisplay(c, t, v, "branches", new Set([7]));
    const L = layoutDisplay(d, 96, 64);
    const b = bucketize(c, d, L);
    expect(b.length).toBe(16);
    expect(b[15].nodes.length).toBe(2);
    expect(b[Kind.Compaction].nodes.length).toBe(1);
    const tv = buildDisplay(c, t, v, "tree", new Set());
    const tl = layoutDisplay(tv, 24, 30);
    for (const bucket of bucketize(c, tv, tl)) {
      for (let j = 1; j < bucket.ys.length; j++) expect(bucket.ys[j]).toBeGreaterThanOrEqual(bucket.ys[j - 1]);
    }
    expect(lowerBound(Float32Array.from([0, 30, 30, 60]), 30)).toBe(1);
    expect(lowerBound(Float32Array.from([0, 30, 30, 60]), 61)).toBe(4);
  });

  it("merges chains into vertical runs and keeps forks as elbows", () => {
    const d = buildDisplay(c, t, v, "tree", new Set());
    const L = layoutDisplay(d, 24, 30);
    const e = buildEdges(t, d, L);
    // 8 edges: 0-1-2-3 vertical (one run), fork 3->4 and 3->6 elbows, 4-5 and 6-7-8 runs
    expect(e.elbowParent.length).toBe(2);
    expect(e.runX.length).toBe(3);
    const active = Array.from(e.runActive);
    expect(active.filter((a) => a === 1).length).toBe(2);
    expect(Math.max(...Array.from(e.runY1))).toBe(8 * 30 - 2 * 30);
  });

  it("maps a compaction's kept span up to its first kept entry", () => {
    const d = buildDisplay(c, t, v, "tree", new Set());
    const marks = compactionMarks(c, t, d);
    expect(marks.length).toBe(1);
    expect(marks[0].span.map((n) => d.entry[n])).toEqual([7, 6, 3, 2]);
    expect(d.entry[marks[0].cutAt]).toBe(2);
    expect(marks[0].tokensBefore).toBe(5000);
  });
});

describe("layoutDisplay with the main branch", () => {
  it("keeps a long main branch with a side leaf at every fork within a few columns", () => {
    // main path 0 -> 1 -> ... -> 59; entry k (even) also has a side leaf 100 + k
    const rows: Row[] = [];
    for (let k = 0; k < 60; k++) rows.push({ id: id8(k), parent: k ? id8(k - 1) : null, kind: Kind.User });
    for (let k = 0; k < 58; k += 2) rows.push({ id: id8(100 + k), parent: id8(k), kind: Kind.Assistant });
    const c = columns(rows, { active_leaf: 59 });
    const t = buildTree(c);
    const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
    const plain = layoutDisplay(d, 10, 10);
    const main = layoutDisplay(d, 10, 10, (n) => t.onActive[d.entry[n]] === 1);
    expect((plain.maxX - plain.minX) / 10).toBeGreaterThan(10);
    expect((main.maxX - main.minX) / 10).toBeLessThanOrEqual(3);
  });
});
