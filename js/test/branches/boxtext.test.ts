import { describe, expect, it } from "vitest";
import { breakLine, titleLines, wrapLines } from "../../src/branches/boxtext";

/** Every character 6 px wide. */
const mono = (t: string): number => t.length * 6;

describe("a box's title in the lines it has", () => {
  it("keeps a title that fits on one line", () => {
    expect(titleLines("continue", 100, 1, mono)).toEqual(["continue"]);
  });

  it("wraps a long prompt at a word onto a second line when a line is spare", () => {
    const title = "Why is parse_dates so slow on big files?";
    const rows = titleLines(title, 120, 1, mono);
    expect(rows).toEqual(["Why is parse_dates", "so slow on big files?"]);
    expect(rows.every((r) => mono(r) <= 126)).toBe(true);
  });

  it("breaks a span's title between its parts, not inside one", () => {
    expect(titleLines("entries 46-101 · peak 15k tokens", 150, 1, mono)).toEqual(["entries 46-101", "peak 15k tokens"]);
  });

  it("stays on one line (fitted by the drawing) with no spare line, or no word that fits", () => {
    expect(titleLines("Why is parse_dates so slow on big files?", 120, 0, mono)).toHaveLength(1);
    expect(breakLine("averyveryverylongword and more", 60, mono)).toBeNull();
  });

  it("sets a box's figures into the lines left, between their parts", () => {
    const figures = "225 forks · ✂ 30 compactions · ✗ 109 errors · 381k output";
    expect(wrapLines(figures, 180, 2, mono)).toEqual(["225 forks · ✂ 30 compactions", "✗ 109 errors · 381k output"]);
    expect(wrapLines(figures, 180, 1, mono)).toEqual([figures]);
  });
});
