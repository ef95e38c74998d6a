import { describe, expect, it } from "vitest";
import { RowHeights, wanted } from "../../src/transcript/vlist";

describe("RowHeights", () => {
  it("places rows by their estimates, then by what they measured", () => {
    const h = new RowHeights([10, 20, 30, 40]);
    expect([0, 1, 2, 3, 4].map((r) => h.top(r))).toEqual([0, 10, 30, 60, 100]);
    expect(h.total).toBe(100);
    expect(h.set(1, 50)).toBe(30);
    expect(h.isMeasured(1)).toBe(true);
    expect(h.isMeasured(0)).toBe(false);
    expect([0, 1, 2, 3, 4].map((r) => h.top(r))).toEqual([0, 10, 60, 90, 130]);
    expect(h.set(1, 50)).toBe(0);
  });

  it("finds the row under a point, clamped to the rows there are", () => {
    const h = new RowHeights([10, 20, 30]);
    expect([-5, 0, 9.9, 10, 29, 30, 59, 60, 1e9].map((y) => h.rowAt(y))).toEqual([0, 0, 0, 1, 1, 2, 2, 2, 2]);
    expect(new RowHeights([]).rowAt(5)).toBe(-1);
  });

  it("gives the rows of a screen plus its margins, at the top, middle and end", () => {
    const h = new RowHeights(new Array(100_000).fill(100));
    expect(h.window(0, 500, 200)).toEqual([0, 8]);
    expect(h.window(5_000_000, 500, 200)).toEqual([49998, 50008]);
    expect(h.window(h.total - 500, 500, 200)).toEqual([99993, 100000]);
    expect(new RowHeights([]).window(0, 500, 200)).toEqual([0, 0]);
  });

  it("keeps the row being read in place when rows above it change height", () => {
    const h = new RowHeights(new Array(1000).fill(100));
    const scroll = 50_050; // 50 px into row 500
    const a = h.anchor(scroll);
    expect(a).toEqual({ row: 500, offset: 50 });
    h.set(10, 300); // a row above grew by 200
    h.set(600, 10); // a row below does not matter
    expect(h.scrollFor(a)).toBe(50_250);
    expect(h.rowAt(h.scrollFor(a))).toBe(500);
  });

  it("centres a row on the screen, or shows its top when it is taller", () => {
    const h = new RowHeights([100, 100, 100, 1000]);
    expect(h.centre(2, 300)).toBe(100);
    expect(h.centre(0, 300)).toBe(0);
    expect(h.centre(3, 300)).toBe(300);
  });

  it("takes a bad estimate as one pixel, and ignores bad measures", () => {
    const h = new RowHeights([NaN, -3, 10]);
    expect(h.total).toBe(12);
    expect(h.set(0, NaN)).toBe(0);
    expect(h.set(7, 10)).toBe(0);
    expect(h.total).toBe(12);
  });
});

describe("wanted", () => {
  it("lists the rows still lacking, nearest the middle first", () => {
    expect(wanted(10, 16, 12, (r) => r === 13)).toEqual([12, 11, 10, 14, 15]);
    expect(wanted(0, 0, 0, () => false)).toEqual([]);
  });
});

describe("RowHeights.carry", () => {
  it("takes the measured heights of the rows that were there before", () => {
    const before = new RowHeights([10, 10, 10]);
    before.set(0, 40);
    before.set(2, 25);
    const after = new RowHeights([10, 10, 10, 10, 10]);
    after.carry(before, 3);
    expect([0, 1, 2, 3, 4].map((r) => after.height(r))).toEqual([40, 10, 25, 10, 10]);
    expect([0, 1, 2, 3].map((r) => after.isMeasured(r))).toEqual([true, false, true, false]);
    expect(after.total).toBe(95);
  });
});
