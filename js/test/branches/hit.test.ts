import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { hitTest, nodeIndex } from "../../src/branches/hit";
import { layoutDisplay, SPACING } from "../../src/branches/layout";
import { buildTree } from "../../src/model/tree";
import { columns, id8 } from "../helpers";

const rows = [
  { id: id8(0), parent: null, kind: Kind.User, time: 0 },
  { id: id8(1), parent: id8(0), kind: Kind.Assistant, time: 1 },
  { id: id8(2), parent: id8(1), kind: Kind.User, time: 2 },
  { id: id8(3), parent: id8(1), kind: Kind.User, time: 3 },
];
const c = columns(rows);
const t = buildTree(c);
const d = buildDisplay(c, t, visibleTree(c, t, "all"), "branches", new Set([0, 2, 3]));
const L = layoutDisplay(d, SPACING.branches.dx, SPACING.branches.dy);
const index = (): ReturnType<typeof nodeIndex> => nodeIndex(L, d.m);

describe("hitTest", () => {
  it("finds each node at its drawn place, at several scales and offsets", () => {
    for (const tr of [
      { x: 0, y: 0, k: 1 },
      { x: 120, y: -40, k: 2 },
      { x: -5, y: 7, k: 0.5 },
    ]) {
      for (let n = 0; n < d.m; n++) {
        const px = L.x[n] * tr.k + tr.x;
        const py = L.y[n] * tr.k + tr.y;
        expect(hitTest(px + 1, py - 1, tr, d, L, c.kind, index)).toEqual({ type: "node", d: n });
      }
    }
  });

  it("finds nothing far from every node", () => {
    const tr = { x: 0, y: 0, k: 1 };
    let maxX = 0;
    for (let n = 0; n < d.m; n++) maxX = Math.max(maxX, L.x[n]);
    expect(hitTest(maxX + 500, -500, tr, d, L, c.kind, index)).toBeNull();
  });
});
