import { describe, expect, it } from "vitest";
import { GRID, coarseDisplay, levelDisplay, roomAt, levelAt, FIT_K, LEVEL_STEP } from "../../src/branches/aggregate";
import { baseFacts, boxes, boxesOf, coarsen, coarsest, fits, planOf, wrapFor } from "../../src/branches/coarsen";
import { wrapRoots } from "../../src/branches/wrap";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { buildDisplay, type Display } from "../../src/model/display";
import type { Tree } from "../../src/model/tree";
import { Kind } from "../../src/model/constants";
import { mainLine, manyRoots, session } from "./sessions";

type S = ReturnType<typeof mainLine>;

function base(s: S) {
  return baseFacts(buildDisplay(s.c, s.t, s.v, "branches", new Set()), s.c, s.t);
}

/** The laid-out display fits the room with boxes at their widest (what Fit relies on). */
function fitsRoom(disp: Display, tree: Tree, room: { width: number; height: number }): boolean {
  const tidy = layoutDisplay(disp, SPACING.branches.dx, SPACING.branches.dy, (d) => tree.onActive[disp.entry[d]] === 1);
  const L = wrapRoots(disp, tidy, wrapFor(room, GRID, (d) => disp.isSeg[d] === 1));
  let x0 = Infinity;
  let x1 = -Infinity;
  for (let d = 0; d < disp.m; d++) {
    const box = disp.isSeg[d] === 1;
    x0 = Math.min(x0, L.x[d] - (box ? GRID.boxHalf : GRID.nodeHalf));
    x1 = Math.max(x1, L.x[d] + (box ? GRID.boxHalf : GRID.lineW));
  }
  return x1 - x0 <= room.width && L.maxY + GRID.boxH <= room.height;
}

/** Entries drawn: in boxes, or by nodes outside boxes. */
function entriesDrawn(disp: Display): number {
  let sum = 0;
  for (let d = 0; d < disp.m; d++) {
    const i = disp.entry[d];
    const a = disp.aggregates.get(i);
    if (a) sum += a.entries;
    else sum += disp.isSeg[d] ? (disp.segments.get(i)?.size ?? 1) : 1;
  }
  return sum;
}

const stage = roomAt(1000, 600, 0);

describe("coarsen: the whole session in the room", () => {
  it("draws a session that fits as it is, no box", () => {
    const s = mainLine(12, 1);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
    expect(disp.aggregates.size).toBe(0);
  });

  it("folds a long main line into spans that fit the stage and say what they hold", () => {
    const s = mainLine(1000, 40, 6, 150);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
    expect(fitsRoom(disp, s.t, stage)).toBe(true);
    const spans = [...disp.aggregates.values()].filter((a) => a.kind === "span");
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.every((a) => a.onActive && a.to >= a.from)).toBe(true);
    expect(spans.reduce((n, a) => n + a.forks, 0)).toBeGreaterThan(0);
    expect(spans.reduce((n, a) => n + a.compactions, 0)).toBeGreaterThan(0);
    expect(entriesDrawn(disp)).toBe(s.c.n);
  });

  it("keeps the active leaf drawn as itself, never inside a box", () => {
    const s = mainLine(1000, 40);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
    const d = disp.nodeOf[s.t.activeLeaf];
    expect(disp.aggregates.has(disp.entry[d])).toBe(false);
  });

  it("folds 24 roots so the whole fits, the active one open", () => {
    const s = manyRoots(24);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
    expect(fitsRoom(disp, s.t, stage)).toBe(true);
    const roots = [...disp.aggregates.values()].filter((a) => a.kind === "roots");
    expect(roots.length).toBeGreaterThan(0);
    expect(roots.reduce((n, a) => n + a.subtrees, 0) + disp.roots.length - roots.length).toBe(24);
    expect(entriesDrawn(disp)).toBe(s.c.n);
  });

  it("wraps roots into rows when the stage is too narrow for two side by side", () => {
    const s = manyRoots(24);
    const narrow = roomAt(520, 600, 0);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), narrow, new Set());
    expect(fitsRoom(disp, s.t, narrow)).toBe(true);
    expect(disp.roots.length).toBeGreaterThan(1);
    const folded = [...disp.aggregates.values()].filter((a) => a.kind === "roots");
    expect(folded.reduce((n, a) => n + a.subtrees, 0) + disp.roots.length - folded.length).toBe(24);
    expect(entriesDrawn(disp)).toBe(s.c.n);
  });

  it("folds every root into one box, marked active, when not even one root fits beside it", () => {
    const s = manyRoots(24);
    const tiny = roomAt(400, 90, 0);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), tiny, new Set());
    expect(disp.m).toBe(1);
    expect(disp.aggregates.get(disp.entry[0])).toMatchObject({ kind: "roots", subtrees: 24, onActive: true });
  });

  it("opens boxes as the room grows, down to none", () => {
    const s = mainLine(400, 20);
    const b = base(s);
    let shown = 0;
    for (let level = 0; level <= 12; level++) {
      const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), roomAt(1000, 600, level), new Set(), b);
      expect(disp.m).toBeGreaterThanOrEqual(shown);
      shown = disp.m;
    }
    expect(levelDisplay(s.c, s.t, s.v, new Set(), { width: 1e7, height: 1e7 }, new Set(), b).disp.aggregates.size).toBe(0);
  });

  it("opens the boxes the reader opened first, whatever the room", () => {
    const s = mainLine(400, 20);
    const b = base(s);
    const tight = coarsest(b);
    const span = boxes(tight).find((u) => u.kind === "span");
    expect(span).toBeDefined();
    const head = b.disp.entry[span!.nodes[0]];
    const before = planOf(b, coarsen(b, { width: 10, height: 10 }, GRID))!;
    expect(before.info.get(head)?.kind).toBe("span");
    const after = planOf(b, coarsen(b, { width: 10, height: 10 }, GRID, new Set([head])))!;
    expect(after.info.get(head)?.to ?? 0).toBeLessThan(before.info.get(head)!.to);
  });

  it("handles 100k entries and 1,800 branches: the whole fits at the opening scale", () => {
    const s = mainLine(100_000, 1800, 8, 270);
    const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
    expect(fitsRoom(disp, s.t, stage)).toBe(true);
    expect(entriesDrawn(disp)).toBe(s.c.n);
  }, 60_000);

  it("makes from the runs' display the same display as building it from every entry", () => {
    for (const s of [mainLine(600, 30, 6, 100), manyRoots(12)]) {
      const b = base(s);
      const found = boxesOf(b, coarsen(b, roomAt(900, 500, 1), GRID))!;
      const fast = coarseDisplay(b, found.boxOf, found.first, found.plan.info);
      const slow = buildDisplay(s.c, s.t, s.v, "branches", new Set(), null, found.plan);
      expect(fast.m).toBe(slow.m);
      for (const key of ["entry", "isSeg", "dparent", "childStart", "childList", "roots", "nodeOf"] as const) {
        expect(Array.from(fast[key])).toEqual(Array.from(slow[key]));
      }
      expect([...fast.aggregates.keys()]).toEqual([...slow.aggregates.keys()]);
    }
  });

  it("fits chains, fans and forests of 100k: a chain of compactions, 100k siblings, 100k roots", () => {
    const chain = session((add) => {
      let p = add(null, Kind.User);
      for (let j = 1; j < 100_000; j++) p = add(p, Kind.Compaction);
    });
    const fan = session((add) => {
      const root = add(null, Kind.User);
      for (let j = 1; j < 100_000; j++) add(root, Kind.Assistant);
    });
    const forest = session((add) => {
      for (let j = 0; j < 100_000; j++) add(null, Kind.User);
    });
    for (const s of [chain, fan, forest]) {
      const { disp } = levelDisplay(s.c, s.t, s.v, new Set(), stage, new Set());
      expect(fitsRoom(disp, s.t, stage)).toBe(true);
      expect(entriesDrawn(disp)).toBe(s.c.n);
    }
  }, 60_000);

  it("checks its own fit the way the view lays out", () => {
    const s = mainLine(200, 10);
    const b = base(s);
    expect(fits(b, coarsen(b, stage, GRID), stage, GRID)).toBe(true);
  });
});

describe("levels of the semantic zoom", () => {
  it("is 0 at Fit and below, one more per zoom step", () => {
    expect(levelAt(0.5, 0.8)).toBe(0);
    expect(levelAt(0.8, 0.8)).toBe(0);
    expect(levelAt(0.8 * LEVEL_STEP, 0.8)).toBe(1);
    expect(levelAt(0.8 * LEVEL_STEP ** 3 * 1.01, 0.8)).toBe(3);
  });

  it("gives each level a step more room", () => {
    const r0 = roomAt(1000, 600, 0);
    const r2 = roomAt(1000, 600, 2);
    expect(r2.width / r0.width).toBeCloseTo(LEVEL_STEP ** 2);
    expect(r0.width).toBeCloseTo((1000 - 32) / FIT_K);
  });
});
