import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { FALLBACK_BRANCH_K, MIN_ROW_K, fitTransform, nodeAtFraction, nodeOfEntry, rowWindow } from "../../src/ui/framing";
import { layoutLanes } from "../../src/tree/lanes";
import { buildLaneScene } from "../../src/tree/lanescene";
import { ALL_TEXT_FROM_PX, LANE_LEFT } from "../../src/tree/lanesdraw";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { BOX_TEXT_FROM_PX, BRANCH_MIN_K, SEG_H } from "../../src/branches/draw";
import { buildScene } from "../../src/branches/scene";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

function lanes(n: number) {
  const rows: Row[] = Array.from({ length: n }, (_, k) => ({ id: id8(k), parent: k ? id8(k - 1) : null, kind: Kind.User, time: k }));
  const c = columns(rows);
  const t = buildTree(c);
  const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
  const L = layoutLanes(c, t, d);
  return { s: buildLaneScene(c, t, d, L), L, d };
}

describe("framing", () => {
  it("fits every row on screen that fits readably, lanes pinned at the left, never past 1.5x", () => {
    for (const n of [3, 20]) {
      const { s, L } = lanes(n);
      const f = fitTransform(s, L, 800, 600);
      expect(f.x).toBe(LANE_LEFT);
      expect(f.k).toBeLessThanOrEqual(1.5);
      const top = f.y;
      const bottom = L.maxY * f.k + f.y;
      expect(top).toBeGreaterThanOrEqual(0);
      expect(bottom).toBeLessThanOrEqual(600);
    }
  });

  it("never shrinks rows below the readable pitch: too many rows start at the top", () => {
    for (const n of [159, 100_000]) {
      const { s, L } = lanes(n);
      const f = fitTransform(s, L, 800, 600);
      expect(f.k).toBeCloseTo(MIN_ROW_K, 9);
      expect(L.dy * f.k).toBeGreaterThanOrEqual(ALL_TEXT_FROM_PX);
      expect(f.y).toBeGreaterThanOrEqual(0);
      expect(f.y).toBeLessThan(L.dy);
    }
  });

  it("marks the rows on screen for the overview, only when some are off screen", () => {
    const { s } = lanes(1000);
    expect(rowWindow(s, { k: 0.01, y: 10 }, 600)).toBeNull();
    const w = rowWindow(s, { k: 1, y: -24 * 500 }, 600);
    expect(w).not.toBeNull();
    expect(w?.[0]).toBeCloseTo(0.5, 5);
    expect(w?.[1]).toBeCloseTo(0.5 + 600 / 24000, 5);
  });

  it("finds the row at a fraction, clamped to the ends", () => {
    const { s, L } = lanes(11);
    expect(L.row[nodeAtFraction(s, 0)]).toBe(0);
    expect(L.row[nodeAtFraction(s, 0.5)]).toBe(5);
    expect(L.row[nodeAtFraction(s, 7)]).toBe(10);
    expect(L.row[nodeAtFraction(s, -1)]).toBe(0);
  });

  it("has no node for entries out of range", () => {
    const { d } = lanes(3);
    expect(nodeOfEntry(d, -1)).toBe(-1);
    expect(nodeOfEntry(d, 3)).toBe(-1);
    expect(nodeOfEntry(d, 2)).toBeGreaterThanOrEqual(0);
  });
});

describe("fitTransform of the Branches view", () => {
  function tidy(leaves: number) {
    const rows: Row[] = [{ id: id8(0), parent: null, kind: Kind.User }];
    for (let j = 1; j <= leaves; j++) rows.push({ id: id8(j), parent: id8(0), kind: Kind.Assistant });
    const c = columns(rows);
    const t = buildTree(c);
    const d = buildDisplay(c, t, visibleTree(c, t, "all"), "branches", new Set());
    const L = layoutDisplay(d, SPACING.branches.dx, SPACING.branches.dy);
    return { s: buildScene(c, t, d, L, "branches"), L };
  }

  it("fits a small tree whole", () => {
    const { s, L } = tidy(3);
    const f = fitTransform(s, L, 1200, 700);
    expect(f.k).toBeGreaterThanOrEqual(BRANCH_MIN_K);
    expect(L.minX * f.k + f.x).toBeGreaterThan(0);
    expect(L.maxX * f.k + f.x).toBeLessThan(1200);
  });

  it("never shrinks boxes below their text: a wide tree opens readable, from the top", () => {
    const { s, L } = tidy(200);
    const f = fitTransform(s, L, 1200, 700);
    expect(f.k).toBeGreaterThanOrEqual(FALLBACK_BRANCH_K);
    expect(SEG_H * f.k).toBeGreaterThanOrEqual(BOX_TEXT_FROM_PX);
    expect(f.y).toBeGreaterThan(0);
    expect(f.y).toBeLessThan(80);
  });
});
