import { describe, expect, it } from "vitest";
import { GRID } from "../../src/branches/aggregate";
import { apply, baseFacts, boxes, coarsen, coarsest, planOf } from "../../src/branches/coarsen";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

/** A main path 0..3 ending on the active leaf, with side subtrees off entry 1:
 * a big one (a fork with 4 leaves) and a small one (a fork with 2 leaves). */
function session() {
  const rows: Row[] = [];
  const add = (id: number, parent: number | null, kind: number = Kind.User): void => {
    rows.push({ id: id8(id), parent: parent === null ? null : id8(parent), kind, tokens: 10 });
  };
  add(0, null);
  add(1, 0, Kind.Assistant);
  add(10, 1); // big side subtree: 10 -> 11 (fork) -> 12, 13, 14, 15
  add(11, 10, Kind.Assistant);
  for (const leaf of [12, 13, 14, 15]) add(leaf, 11);
  add(20, 1); // small side subtree: 20 (fork) -> 21, 22
  for (const leaf of [21, 22]) add(leaf, 20, Kind.Assistant);
  add(2, 1);
  add(3, 2, Kind.Assistant); // active leaf: the last row
  const c = columns(rows);
  const t = buildTree(c);
  const v = visibleTree(c, t, "all");
  const d = buildDisplay(c, t, v, "branches", new Set());
  return { c, t, v, d, index: (id: number) => rows.findIndex((r) => r.id === id8(id)) };
}

/** Side subtrees each drawn as one box: the sides of the fork opened one step. */
function sidesAsBoxes(x: ReturnType<typeof session>) {
  const b = baseFacts(x.d, x.c, x.t);
  const units = coarsest(b);
  return planOf(b, apply(b, units, new Set(boxes(units))));
}

describe("boxes of side subtrees", () => {
  it("starts with the fork's side branches as one box, the active path open", () => {
    const { c, t, d, index } = session();
    const b = baseFacts(d, c, t);
    const plan = planOf(b, coarsest(b));
    expect([...plan!.info.keys()]).toEqual([index(10)]);
    expect(plan!.info.get(index(10))).toMatchObject({ kind: "branches", subtrees: 2, branches: 6 });
    expect(plan!.of[index(3)]).toBe(-1);
  });

  it("folds nothing when the whole session fits", () => {
    const { c, t, d } = session();
    const b = baseFacts(d, c, t);
    expect(planOf(b, coarsen(b, { width: 1e5, height: 1e5 }, GRID))).toBeNull();
  });

  it("draws a subtree as one box with its branches, entries and tokens", () => {
    const x = session();
    const { c, t, v, index } = x;
    const d2 = buildDisplay(c, t, v, "branches", new Set(), null, sidesAsBoxes(x));
    const info = d2.aggregates.get(index(10));
    expect(info).toMatchObject({ kind: "branches", branches: 4, entries: 6, tokens: 10, forks: 1 });
    const node = d2.nodeOf[index(10)];
    expect(d2.isSeg[node]).toBe(1);
    for (const leaf of [11, 12, 15]) expect(d2.nodeOf[index(leaf)]).toBe(node);
    expect(d2.dparent[node]).toBe(d2.nodeOf[index(1)]);
  });
});

describe("boxHalves", () => {
  it("widens a box into the room its neighbours at the same depth leave, within bounds", async () => {
    const { boxHalves } = await import("../../src/branches/scene");
    const { layoutDisplay } = await import("../../src/branches/layout");
    const { d } = session();
    const L = layoutDisplay(d, 280, 96);
    const half = boxHalves(d, L, 105, 210);
    const root = d.roots[0];
    // the root box is alone on its level: as wide as allowed
    expect(half[root]).toBe(210);
    for (let n = 0; n < d.m; n++) {
      if (!d.isSeg[n]) {
        expect(half[n]).toBe(0);
        continue;
      }
      expect(half[n]).toBeGreaterThanOrEqual(105);
      expect(half[n]).toBeLessThanOrEqual(210);
      // never into a neighbour's half of the gap
      for (let o = 0; o < d.m; o++) {
        if (o !== n && L.y[o] === L.y[n]) expect(half[n]).toBeLessThanOrEqual(Math.max(105, Math.abs(L.x[o] - L.x[n]) / 2));
      }
    }
  });
});

describe("boxHasHit", () => {
  it("finds a hit anywhere in a run's box or a subtree's box, and nowhere else", async () => {
    const { boxHasHit } = await import("../../src/branches/draw");
    const { c, t, v, d, index } = session();
    const hits = new Uint8Array(c.n);
    hits[index(13)] = 1; // a leaf inside the big side subtree
    const head = (i: number): number => d.entry[d.nodeOf[index(i)]];
    expect(boxHasHit(d, t, head(13), hits)).toBe(true);
    expect(boxHasHit(d, t, head(20), hits)).toBe(false);
    expect(boxHasHit(d, t, head(0), hits)).toBe(false);
    const d2 = buildDisplay(c, t, v, "branches", new Set(), null, sidesAsBoxes(session()));
    expect(boxHasHit(d2, t, index(10), hits)).toBe(true);
    expect(boxHasHit(d2, t, d2.entry[d2.nodeOf[index(3)]], hits)).toBe(false);
  });
});
