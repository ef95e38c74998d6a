import { describe, expect, it } from "vitest";
import { fitBox } from "../../src/ui/viewport";

describe("fitBox", () => {
  it("centres the box and scales it to the tighter side", () => {
    const f = fitBox({ minX: 0, maxX: 960, minY: 0, maxY: 160 }, 40, 40, 1060, 600);
    expect(f.k).toBeCloseTo(1, 6); // (1060 - 60) / 1000
    expect(f.x).toBeCloseTo(1060 / 2 - 480, 6);
    expect(f.y).toBeCloseTo(300 - 80, 6);
  });
  it("never zooms in past 1.5", () => {
    expect(fitBox({ minX: 0, maxX: 10, minY: 0, maxY: 10 }, 0, 0, 800, 600).k).toBe(1.5);
  });
  it("stays finite for an empty box and a tiny screen", () => {
    const f = fitBox({ minX: 5, maxX: 5, minY: 5, maxY: 5 }, 0, 0, 0, 0);
    expect(Number.isFinite(f.k) && Number.isFinite(f.x) && Number.isFinite(f.y)).toBe(true);
  });
});
