import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { layoutLanes } from "../../src/tree/lanes";
import { buildLaneScene } from "../../src/tree/lanescene";
import { drawLanes } from "../../src/tree/lanesdraw";
import type { Marks, Theme } from "../../src/ui/canvas";
import { recordingContext } from "../branches/drawfixture";
import { columns, id8, type Row } from "../helpers";

const theme: Theme = { bg: "#fefefe", fg: "#111111", muted: "#777777", edge: "#cccccc", active: "#3366ff", accent: "#ff9900", segFill: "#f4f4f4", font: "sans-serif" };
const none: Marks = { selected: -1, hover: -1, hits: null, currentHit: -1 };

/** The dashed rules (pattern 6-4) the Tree draws across the stage: each a moveTo at x 0. */
function rootRules(rows: Row[]): number {
  const c = columns(rows, { active_leaf: rows.length - 1 });
  const t = buildTree(c);
  const d = buildDisplay(c, t, visibleTree(c, t, "all"), "tree", new Set());
  const scene = buildLaneScene(c, t, d, layoutLanes(c, t, d));
  const { ctx, log } = recordingContext();
  drawLanes(ctx, scene, { k: 1, x: 0, y: 0 }, 900, 600, 1, theme, none);
  const dash = log.findIndex((call) => call[0] === "setLineDash" && JSON.stringify(call[1]) === "[6,4]");
  if (dash < 0) return 0;
  const begin = log.slice(0, dash).map((call) => call[0]).lastIndexOf("beginPath");
  return log.slice(begin, dash).filter((call) => call[0] === "moveTo" && call[1] === 0).length;
}

const chain = (from: number, to: number, root: boolean): Row[] =>
  Array.from({ length: to - from + 1 }, (_, j) => ({
    id: id8(from + j),
    parent: j === 0 && root ? null : id8(from + j - 1),
    kind: j % 2 ? Kind.Assistant : Kind.User,
    time: from + j,
  }));

describe("drawLanes", () => {
  it("starts a second root below a rule, so it does not read as the branch above", () => {
    expect(rootRules(chain(0, 5, true))).toBe(0);
    expect(rootRules([...chain(0, 5, true), ...chain(6, 9, true)])).toBe(1);
    expect(rootRules([...chain(0, 3, true), ...chain(4, 6, true), ...chain(7, 9, true)])).toBe(2);
  });
});
