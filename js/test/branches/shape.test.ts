import { describe, expect, it } from "vitest";
import { FIT_K, GRID, LINE_PX, levelDisplay, roomAt } from "../../src/branches/aggregate";
import { Kind } from "../../src/model/constants";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { wrapFor } from "../../src/branches/coarsen";
import { wrapRoots } from "../../src/branches/wrap";
import type { Display } from "../../src/model/display";
import type { Tree } from "../../src/model/tree";
import { mainLine, manyRoots } from "./sessions";
import { session } from "./sessions";

/** Branches at Fit keeps the session's shape: the width is used for side branches, in
 * grid units (no DOM). */

const wide = roomAt(1200, 600, 0);

function laid(disp: Display, tree: Tree) {
  return layoutDisplay(disp, SPACING.branches.dx, SPACING.branches.dy, (d) => tree.onActive[disp.entry[d]] === 1);
}

/** Box display nodes hanging from a span box (side branches shown beside the spine). */
function sidesOfSpans(disp: Display): number[] {
  const out: number[] = [];
  for (let d = 0; d < disp.m; d++) {
    const p = disp.dparent[d];
    if (p < 0) continue;
    if (disp.aggregates.get(disp.entry[p])?.kind === "span") out.push(d);
  }
  return out;
}

describe("Branches at Fit shows where the session forked", () => {
  const s = mainLine(1000, 40, 6, 150);
  const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), wide, new Set());
  const L = laid(disp, s.t);

  it("hangs side branches beside the spine's spans, each with its size", () => {
    const spine = (d: number): boolean => s.t.onActive[disp.entry[d]] === 1;
    const sides = sidesOfSpans(disp).filter((d) => !spine(d));
    expect(sides.length).toBeGreaterThanOrEqual(3);
    for (const d of sides) {
      const a = disp.aggregates.get(disp.entry[d]);
      if (a) expect(a.entries).toBeGreaterThan(0);
    }
  });

  it("uses the width it has: columns beside the spine, still inside the room", () => {
    const width = L.maxX - L.minX + 2 * GRID.boxHalf;
    expect(width).toBeGreaterThan(wide.width / 2);
    expect(width).toBeLessThanOrEqual(wide.width);
    expect(L.maxY + GRID.boxH).toBeLessThanOrEqual(wide.height);
  });

  it("uses the height for the spine first: its rows fill the room", () => {
    const rows = Math.floor((wide.height - GRID.boxH) / GRID.dy) + 1;
    let spineRows = 0;
    for (let d = 0; d < disp.m; d++) if (s.t.onActive[disp.entry[d]] === 1 || disp.aggregates.get(disp.entry[d])?.kind === "span") spineRows++;
    expect(spineRows).toBe(rows);
  });

  it("splits no entry twice: a span holds its stretch, its sides their subtrees", () => {
    let sum = 0;
    for (let d = 0; d < disp.m; d++) {
      const i = disp.entry[d];
      const a = disp.aggregates.get(i);
      sum += a ? a.entries : disp.isSeg[d] ? (disp.segments.get(i)?.size ?? 1) : 1;
    }
    expect(sum).toBe(s.c.n);
  });
});

describe("Branches at Fit lays roots in rows", () => {
  it("shows many roots side by side, wrapped, rather than one beside a box of the rest", () => {
    for (const s of [manyRoots(24), session((add) => { for (let j = 0; j < 24; j++) add(null); })]) {
      const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), wide, new Set());
      expect(disp.roots.length).toBeGreaterThanOrEqual(6);
      const L = wrapRoots(disp, laid(disp, s.t), wrapFor(wide, GRID, (d) => disp.isSeg[d] === 1));
      const rows = new Set(Array.from(disp.roots, (r) => L.y[r]));
      expect(rows.size).toBeGreaterThan(1);
      expect(L.maxY + GRID.boxH).toBeLessThanOrEqual(wide.height);
    }
  });

  it("gives each of 24 one-entry roots a cell of its own on a wide stage, no box of roots", () => {
    // A plain node once reserved room for the longest line a node may carry (484 px),
    // so only two roots stood side by side and the rest folded into "▸ 2 roots" boxes.
    const s = session((add) => { for (let j = 0; j < 24; j++) add(null, Kind.User); });
    const room = roomAt(1400, 820, 0);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), room, new Set());
    expect(disp.aggregates.size).toBe(0);
    expect(disp.roots.length).toBe(24);
    const L = wrapRoots(disp, laid(disp, s.t), wrapFor(room, GRID, (d) => disp.isSeg[d] === 1));
    const perRow = new Map<number, number>();
    for (const r of disp.roots) perRow.set(L.y[r], (perRow.get(L.y[r]) ?? 0) + 1);
    expect(Math.max(...perRow.values())).toBeGreaterThanOrEqual(3);
    // Each cell keeps a readable line: the next root stands a cell's width away.
    const row = Array.from(disp.roots).filter((r) => L.y[r] === L.y[disp.roots[0]]).map((r) => L.x[r]).sort((a, b) => a - b);
    for (let j = 1; j < row.length; j++) expect((row[j] - row[j - 1]) * FIT_K).toBeGreaterThanOrEqual(LINE_PX);
  });
});
