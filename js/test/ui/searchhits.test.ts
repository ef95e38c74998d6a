import { describe, expect, it } from "vitest";
import { hitCountText, nextHitPos, orderedHits } from "../../src/ui/searchhits";

describe("orderedHits", () => {
  it("keeps the tree's row order and counts hidden hits apart", () => {
    const order = [3, 0, 2, 1];
    const hits = new Uint8Array([1, 1, 0, 1]);
    const shown = new Uint8Array([1, 0, 1, 1]);
    expect(orderedHits(order, hits, shown)).toEqual({ list: [3, 0], hidden: 1 });
  });
  it("finds nothing without hits", () => {
    expect(orderedHits([0, 1], new Uint8Array(2), new Uint8Array([1, 1]))).toEqual({ list: [], hidden: 0 });
  });
});

describe("hitCountText", () => {
  it("reads position over count, a dash when none is selected", () => {
    expect(hitCountText(1, 5, 0)).toBe("2/5");
    expect(hitCountText(-1, 5, 0)).toBe("–/5");
    expect(hitCountText(-1, 0, 0)).toBe("0 hits");
    expect(hitCountText(0, 2, 3)).toBe("1/2 (+3 hidden)");
  });
});

describe("nextHitPos", () => {
  it("wraps both ways and starts at an end", () => {
    expect(nextHitPos(-1, 1, 4)).toBe(0);
    expect(nextHitPos(-1, -1, 4)).toBe(3);
    expect(nextHitPos(3, 1, 4)).toBe(0);
    expect(nextHitPos(0, -1, 4)).toBe(3);
    expect(nextHitPos(1, 1, 4)).toBe(2);
  });
});
