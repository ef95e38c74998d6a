import { describe, expect, it } from "vitest";
import { COLORS, Flag, Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { layoutLanes } from "../../src/tree/lanes";
import { buildLaneScene } from "../../src/tree/lanescene";
import { minimapShape, minimapTicks } from "../../src/tree/minimap";
import { foldToFit } from "../../src/tree/aggregate";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

function scene(rows: Row[]) {
  const c = columns(rows);
  const t = buildTree(c);
  const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
  return buildLaneScene(c, t, d, layoutLanes(c, t, d));
}

describe("minimapTicks", () => {
  const rows: Row[] = [];
  for (let k = 0; k < 1000; k++) {
    rows.push({
      id: id8(k),
      parent: k ? id8(k - 1) : null,
      kind: k === 500 ? Kind.Compaction : Kind.User,
      flags: k === 900 ? Flag.Error : 0,
      time: k,
    });
  }
  const s = scene(rows);

  it("marks compactions, errors and hits where they sit in the session", () => {
    const hits = new Uint8Array(1000);
    hits[100] = 1;
    const ticks = minimapTicks(s, hits, 200);
    expect(ticks).toContainEqual({ y: 100, color: COLORS.compaction });
    expect(ticks).toContainEqual({ y: 180, color: COLORS.error });
    expect(ticks).toContainEqual({ y: 20, color: COLORS.search });
  });

  it("draws one tick per pixel row and colour, however many rows share it", () => {
    const hits = new Uint8Array(1000).fill(1);
    const ticks = minimapTicks(s, hits, 50);
    expect(ticks.length).toBe(50);
  });

  it("draws nothing in no room", () => {
    expect(minimapTicks(s, null, 0)).toEqual([]);
  });
});

describe("minimapShape", () => {
  // main line 0..99, a side branch 100..119 off entry 40 (the file's last entry ends the
  // side branch, so the active leaf is given)
  const rows: Row[] = [];
  for (let k = 0; k < 100; k++) rows.push({ id: id8(k), parent: k ? id8(k - 1) : null, kind: k === 60 ? Kind.Compaction : Kind.User, time: k });
  for (let k = 100; k < 120; k++) rows.push({ id: id8(k), parent: id8(k === 100 ? 40 : k - 1), kind: Kind.User, time: k });

  it("draws the active path thick and a branch leaving it, at their places", () => {
    const c = columns(rows, { active_leaf: 99 });
    const t = buildTree(c);
    const v = visibleTree(c, t, "all");
    const f = foldToFit(c, t, v, 12);
    const d = buildDisplay(c, t, v, "tree", new Set(), f.fold);
    const s = buildLaneScene(c, t, d, layoutLanes(c, t, d));
    const shape = minimapShape(s);
    const main = shape.lines.filter((l) => l.lane === 0);
    expect(main.every((l) => l.active)).toBe(true);
    expect(Math.min(...main.map((l) => l.y0))).toBeLessThan(0.1);
    expect(Math.max(...main.map((l) => l.y1))).toBeGreaterThan(0.9);
    expect(shape.offs).toHaveLength(1);
    expect(shape.offs[0]).toMatchObject({ from: 0, to: 1, active: false });
    // the folded rows are marked by what they hold: the compaction's row (or fold) ticks
    expect(minimapTicks(s, null, 100).some((tk) => tk.color === COLORS.compaction)).toBe(true);
  });
});
