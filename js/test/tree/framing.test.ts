import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { MIN_ROW_K, fitLanes, nodeAtFraction, rowWindow } from "../../src/tree/framing";
import { nodeOfEntry } from "../../src/ui/graphview";
import { layoutLanes } from "../../src/tree/lanes";
import { buildLaneScene } from "../../src/tree/lanescene";
import { ALL_TEXT_FROM_PX, LANE_LEFT } from "../../src/tree/lanesdraw";
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
      const f = fitLanes(s, 600);
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
      const f = fitLanes(s, 600);
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
