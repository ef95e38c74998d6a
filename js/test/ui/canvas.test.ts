import { describe, expect, it } from "vitest";
import { Kind, KIND_STYLES } from "../../src/model/constants";
import { fitText, fmtCount, rgba, roundRect, screenRadius, truncate } from "../../src/ui/canvas";
import { recordingContext } from "../branches/drawfixture";

describe("fitText", () => {
  const { ctx } = recordingContext(); // 6 px a character

  it("keeps a text that fits, whole", () => {
    expect(fitText(ctx, "hello", 30)).toBe("hello");
  });

  it("cuts the longest head that fits with its ellipsis", () => {
    const shown = fitText(ctx, "hello world", 40);
    expect(shown).toBe("hello…");
    expect(ctx.measureText(shown).width).toBeLessThanOrEqual(40);
    expect(ctx.measureText(fitText(ctx, "hello world", 47)).width).toBeGreaterThan(40);
  });

  it("gives nothing when not even one character and the ellipsis fit", () => {
    expect(fitText(ctx, "hello", 11)).toBe("");
  });
});

describe("text helpers", () => {
  it("truncates to one line of at most max characters", () => {
    expect(truncate("  a\n b\t c  ", 10)).toBe("a b c");
    expect(truncate("abcdefghij", 5)).toBe("abcd…");
    expect(truncate("abcde", 5)).toBe("abcde");
  });

  it("writes counts short", () => {
    expect(fmtCount(999)).toBe("999");
    expect(fmtCount(1500)).toBe("1.5k");
    expect(fmtCount(12_345)).toBe("12k");
  });
});

describe("pixels and shapes", () => {
  it("packs #rrggbb as the bytes r, g, b, opaque; grey for what it cannot parse", () => {
    const bytes = (word: number): number[] => [...new Uint8Array(new Uint32Array([word]).buffer)];
    expect(bytes(rgba("#112233"))).toEqual([0x11, 0x22, 0x33, 0xff]);
    expect(bytes(rgba("red"))).toEqual([0x88, 0x88, 0x88, 0xff]);
  });

  it("scales a node's radius with the zoom, never under 1.25 px", () => {
    expect(screenRadius(Kind.User, 2)).toBeCloseTo(KIND_STYLES[Kind.User].r * 2, 9);
    expect(screenRadius(Kind.User, 0.001)).toBe(1.25);
  });

  it("rounds a box's corners by at most half its shorter side", () => {
    const { ctx, log } = recordingContext();
    roundRect(ctx, 0, 0, 100, 10, 8);
    const radii = log.filter((c) => c[0] === "arcTo").map((c) => c[5]);
    expect(radii).toEqual([5, 5, 5, 5]);
    expect(log.at(-1)).toEqual(["closePath"]);
  });
});
