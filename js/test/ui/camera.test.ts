import { describe, expect, it } from "vitest";
import { MAX_WHEEL_STEP, wheelDelta } from "../../src/ui/camera";

const scale = (ev: { deltaY: number; deltaMode?: number }): number => 2 ** wheelDelta(ev);

describe("wheelDelta", () => {
  it("zooms one pixel-mode notch by exactly the step, in and out", () => {
    expect(scale({ deltaY: -100, deltaMode: 0 })).toBeCloseTo(MAX_WHEEL_STEP, 9);
    expect(scale({ deltaY: 100, deltaMode: 0 })).toBeCloseTo(1 / MAX_WHEEL_STEP, 9);
  });
  it("clamps a line-mode notch and a page-mode delta to the step", () => {
    expect(scale({ deltaY: -3, deltaMode: 1 })).toBeCloseTo(MAX_WHEEL_STEP, 9);
    expect(scale({ deltaY: -30, deltaMode: 1 })).toBeCloseTo(MAX_WHEEL_STEP, 9);
    expect(scale({ deltaY: 1, deltaMode: 2 })).toBeCloseTo(1 / MAX_WHEEL_STEP, 9);
  });
  it("never passes the step, however large the delta", () => {
    for (const deltaY of [-1e6, -500, 240, 1e6]) {
      const s = scale({ deltaY, deltaMode: 0 });
      expect(Math.max(s, 1 / s)).toBeLessThanOrEqual(MAX_WHEEL_STEP + 1e-9);
    }
  });
  it("scales small trackpad deltas in proportion, so pinches stay smooth", () => {
    const one = wheelDelta({ deltaY: -4, deltaMode: 0 });
    const two = wheelDelta({ deltaY: -8, deltaMode: 0 });
    expect(one).toBeGreaterThan(0);
    expect(two).toBeCloseTo(2 * one, 12);
    expect(scale({ deltaY: -4, deltaMode: 0 })).toBeLessThan(1.01);
  });
});
