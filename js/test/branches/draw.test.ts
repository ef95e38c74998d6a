import { describe, expect, it } from "vitest";
import { draw, type TidyDrawStats } from "../../src/branches/draw";
import type { Scene } from "../../src/branches/scene";
import type { Marks, Theme } from "../../src/ui/canvas";
import { aggregateText } from "../../src/branches/drawbox";
import { branchesScene, recordingContext, type Call } from "./drawfixture";

const theme: Theme = { bg: "#fefefe", fg: "#111111", muted: "#777777", edge: "#cccccc", active: "#3366ff", accent: "#ff9900", segFill: "#f4f4f4", font: "sans-serif" };
const none: Marks = { selected: -1, hover: -1, hits: null, currentHit: -1 };

function drawAt(scene: Scene, k: number, marks: Marks = none): { log: Call[]; stats: TidyDrawStats } {
  const { ctx, log } = recordingContext();
  // The first box whole on the stage at every scale tried (its title below the top).
  const stats = draw(ctx, scene, { k, x: 300, y: 60 }, 900, 600, 2, theme, marks);
  return { log, stats };
}

describe("draw (Branches)", () => {
  it("writes far-away nodes into pixels and draws near ones as shapes", () => {
    const scene = branchesScene(true);
    const far = drawAt(scene, 0.05);
    expect(far.log.some((c) => c[0] === "putImageData")).toBe(true);
    expect(far.stats.nodes).toBeGreaterThan(0);
    const near = drawAt(scene, 2.5);
    expect(near.log.some((c) => c[0] === "putImageData")).toBe(false);
    expect(near.stats.nodes).toBeGreaterThan(0);
  });

  it("gives every box on screen its text, and no two texts overlap", () => {
    for (const k of [0.7, 1, 1.6]) {
      const { stats } = drawAt(branchesScene(false), k);
      expect(stats.landmarks.length).toBeGreaterThan(0);
      for (const d of stats.landmarks) expect(stats.texts.some((t) => t.d === d)).toBe(true);
      for (const [j, a] of stats.texts.entries()) {
        for (const b of stats.texts.slice(j + 1)) {
          const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
          expect(overlap).toBe(false);
        }
      }
    }
  });

  it("asks for the first lines it lacks, and for none once it has them all", () => {
    const scene = branchesScene(true);
    const asked = drawAt(scene, 1, { ...none, lines: new Map() }).stats.missingLines ?? [];
    expect(asked.length).toBeGreaterThan(0);
    const lines = new Map(Array.from({ length: scene.cols.n }, (_, i) => [i, `line ${i}`] as [number, string]));
    expect(drawAt(scene, 1, { ...none, lines }).stats.missingLines ?? []).toEqual([]);
  });

  it("draws a side subtree as a stack of boxes that counts its branches", () => {
    const { log, stats } = drawAt(branchesScene(false, 2), 1);
    expect(log.some((c) => c[0] === "setLineDash" && JSON.stringify(c[1]) === "[5,3]")).toBe(true);
    expect(log.some((c) => c[0] === "fillText" && /^▸ \d+ branch/.test(String(c[1])))).toBe(true);
    expect(stats.texts.length).toBeGreaterThan(0);
  });

  it("draws the selection ring last, over everything else", () => {
    const scene = branchesScene(true);
    const { log } = drawAt(scene, 1, { ...none, selected: 0 });
    const strokes = log.map((c, j) => [c, j] as const).filter(([c]) => c[0] === "=strokeStyle");
    expect(strokes.at(-1)?.[0]).toEqual(["=strokeStyle", theme.bg]);
    expect(strokes.at(-2)?.[0]).toEqual(["=strokeStyle", theme.accent]);
    expect(log.at(-1)).toEqual(["stroke"]);
  });
});

describe("aggregateText", () => {
  const base = { head: 0, branches: 14, entries: 2300, tokens: 1_234_567, output: 0, errors: 0, labels: 0, forks: 12, compactions: 3, subtrees: 1, onActive: true, from: 1, to: 2300 };
  it("says what a span of the main line holds", () => {
    expect(aggregateText({ ...base, kind: "span" })).toEqual(["entries 1-2,300 · peak 1.2M tokens", "12 forks · ✂ 3 compactions"]);
  });
  it("counts the branches of a side box and the roots of a roots box, errors too", () => {
    expect(aggregateText({ ...base, kind: "branches", compactions: 0, errors: 1 })).toEqual(["▸ 14 branches · 2,300 entries", "peak 1.2M tokens · ✗ 1 error"]);
    expect(aggregateText({ ...base, kind: "roots", subtrees: 23, compactions: 0 })[0]).toBe("▸ 23 roots · 2,300 entries");
    expect(aggregateText({ ...base, kind: "branches", output: 1_234_567 })[1]).toMatch(/ · 1\.2M output$/);
  });
});
