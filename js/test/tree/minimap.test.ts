import { describe, expect, it } from "vitest";
import { COLORS, Flag, Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { layoutLanes } from "../../src/tree/lanes";
import { buildLaneScene } from "../../src/tree/lanescene";
import { minimapTicks } from "../../src/tree/minimap";
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
