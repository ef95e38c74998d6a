// @vitest-environment jsdom
import { ZoomTransform } from "d3-zoom";
import { describe, expect, it } from "vitest";
import { buildDisplay } from "../../src/model/display";
import type { TreeFolds } from "../../src/tree/aggregate";
import { rowBudget } from "../../src/tree/framing";
import { TreeView } from "../../src/tree/view";
import { mainLine } from "../branches/sessions";

/** Selecting an entry in the Tree: a click selects an entry that has a row already, and
 * must not rebuild the folds; an entry inside a fold gets its row by opening that fold
 * around it in the level shown, and the overview strip's whole picture is kept. */

const stage = { width: 1000, height: 600 };

function tree() {
  const s = mainLine(4000, 60, 6, 300);
  const v = new TreeView({ moveTo: () => undefined });
  const src = { cols: s.c, tree: s.t, vis: s.v, selected: -1 };
  v.build(src, stage);
  v.fit(stage);
  return { v, s, src };
}

/** Entries with a row of their own, and entries inside a folded row. */
function rows(v: TreeView): { own: number[]; folded: number[] } {
  const own: number[] = [];
  const folded: number[] = [];
  for (let i = 0; i < v.disp.nodeOf.length; i++) {
    const d = v.disp.nodeOf[i];
    if (d < 0) continue;
    if (!v.disp.isSeg[d] && v.disp.entry[d] === i) own.push(i);
    else if (v.disp.isSeg[d] && v.disp.entry[d] !== i) folded.push(i);
  }
  return { own, folded };
}

describe("TreeView at Fit", () => {
  it("uses every row the stage has at Fit", () => {
    const { v } = tree();
    const budget = rowBudget(stage.height);
    expect(v.folding).toBe(true);
    expect(v.disp.m).toBeLessThanOrEqual(budget);
    expect(v.disp.m).toBeGreaterThanOrEqual(budget - 1);
  });
});

describe("TreeView selection", () => {
  it("rebuilds nothing when the selected entry has a row of its own", () => {
    const { v, src } = tree();
    expect(v.folding).toBe(true);
    const { own } = rows(v);
    expect(own.length).toBeGreaterThan(3);
    const before = { version: v.version, disp: v.disp };
    for (const i of own.slice(0, 5)) {
      const sel = { ...src, selected: i };
      expect(v.stale(sel, stage)).toBe(false);
      expect(v.reveal(sel, stage, i)).toBe(false);
      v.build(sel, stage);
      expect(v.disp).toBe(before.disp);
    }
    expect(v.version - before.version).toBeLessThanOrEqual(5);
  });

  it("gives a folded selection its row in one build (at Fit, the overview's too)", () => {
    const { v, src } = tree();
    const { folded } = rows(v);
    const i = folded[Math.floor(folded.length / 2)];
    const sel = { ...src, selected: i };
    expect(v.stale(sel, stage)).toBe(true);
    expect(v.reveal(sel, stage, i)).toBe(true);
    const d = v.disp.nodeOf[i];
    expect(v.disp.entry[d]).toBe(i);
    expect(v.disp.isSeg[d]).toBe(0);
    expect((v as unknown as { overview(): unknown }).overview()).toBe(v.scene);
    // Selecting another entry that now has a row costs no build.
    const disp = v.disp;
    const other = rows(v).own[0];
    v.build({ ...src, selected: other }, stage);
    expect(v.disp).toBe(disp);
  });
});

describe("TreeView opening a fold", () => {
  it("opens the fold around a folded selection at Fit, every row still on screen", () => {
    const { v, src } = tree();
    const before = rows(v);
    const m = v.disp.m;
    const i = before.folded[Math.floor(before.folded.length / 3)];
    expect(v.reveal({ ...src, selected: i }, stage, i)).toBe(true);
    expect(v.disp.entry[v.disp.nodeOf[i]]).toBe(i);
    // Fit's rows stay on screen: the opening is made in the level with two rows to spare.
    expect(v.disp.m).toBeLessThanOrEqual(rowBudget(stage.height));
    expect(v.disp.m).toBeGreaterThanOrEqual(m - 2);
    // The display of the opened level is the one built from its folds.
    const folds = (v as unknown as { cache: Map<number, { folds: TreeFolds }> }).cache.get(0)!.folds;
    const full = buildDisplay(src.cols, src.tree, src.vis, "tree", new Set(), folds.fold);
    for (const key of ["m", "entry", "isSeg", "dparent", "childStart", "childList", "nodeOf"] as const) {
      expect(v.disp[key]).toEqual(full[key]);
    }
  });

  it("opens from the level as built: selecting one folded entry after another adds no rows", () => {
    const { v, src } = tree();
    const budget = rowBudget(stage.height);
    const made = () => (v as unknown as { cache: Map<number, { made?: unknown }> }).cache.get(0)!.made;
    const { folded } = rows(v);
    let first: unknown = null;
    for (let j = 1; j <= 8; j++) {
      const i = folded[Math.floor((j * folded.length) / 10)];
      if (v.disp.entry[v.disp.nodeOf[i]] === i) continue;
      expect(v.reveal({ ...src, selected: i }, stage, i)).toBe(true);
      expect(v.disp.entry[v.disp.nodeOf[i]]).toBe(i);
      expect(v.disp.m).toBeLessThanOrEqual(budget);
      first ??= made();
      expect(made()).toBe(first);
    }
    expect(first).not.toBeNull();
  });

  it("builds ahead the level asked for last, not the one a wait under way was for", async () => {
    const { v, src } = tree();
    await new Promise((r) => setTimeout(r, 80));
    const t0 = v.fit(stage);
    // Zoomed in one level (level 2 then waits to be built ahead), back to Fit, a click.
    v.zoomed(src, stage, new ZoomTransform(t0.k * 1.26, t0.x, t0.y));
    const folded = rows(v).folded;
    v.fit(stage);
    const i = folded[Math.floor(folded.length / 2)];
    (v as unknown as { keepNeighbours(i: number, s: typeof stage): void }).keepNeighbours(i, stage);
    await new Promise((r) => setTimeout(r, 120));
    const ahead = (v as unknown as { cache: Map<number, { disp: typeof v.disp }> }).cache.get(1);
    expect(ahead).toBeDefined();
    expect(ahead!.disp.entry[ahead!.disp.nodeOf[i]]).toBe(i);
  });

  it("builds a level ahead for the selection made while it waited", async () => {
    const { v, src } = tree();
    // What level 1 folds when nothing is selected.
    const probe = tree().v;
    const t0 = probe.fit(stage);
    probe.zoomed(src, stage, new ZoomTransform(t0.k * 1.26, t0.x, t0.y));
    const folded = rows(probe).folded;
    const i = folded[Math.floor(folded.length / 2)];
    // A click while the level ahead waits to be built (a click draws, and the drawing
    // notes the selection).
    (v as unknown as { keepNeighbours(i: number, s: typeof stage): void }).keepNeighbours(i, stage);
    await new Promise((r) => setTimeout(r, 120));
    const ahead = (v as unknown as { cache: Map<number, { disp: typeof v.disp }> }).cache.get(1);
    expect(ahead).toBeDefined();
    const d = ahead!.disp.nodeOf[i];
    expect(ahead!.disp.entry[d]).toBe(i);
    expect(ahead!.disp.isSeg[d]).toBe(0);
  });
});

describe("TreeView selection changing the level shown", () => {
  /** Counts the levels folded from scratch (``make``), the costly build. */
  function counted(v: TreeView): { makes: number } {
    const seen = { makes: 0 };
    const inner = v as unknown as { make: (...a: unknown[]) => unknown };
    const make = inner.make.bind(v);
    inner.make = (...a: unknown[]) => {
      seen.makes++;
      return make(...a);
    };
    return seen;
  }

  it("opens the fold in the level it frames instead of folding that level again", () => {
    const { v, src } = tree();
    const t0 = v.fit(stage);
    // Level 1 built (a reader's zoom notch), then back to Fit.
    v.zoomed(src, stage, new ZoomTransform(t0.k * 1.26, t0.x, t0.y));
    const level1 = rows(v).folded;
    v.fit(stage);
    const atFit = new Set(rows(v).folded);
    const i = level1.filter((x) => atFit.has(x))[Math.floor(level1.length / 3)];
    expect(i).toBeDefined();
    const seen = counted(v);
    const sel = { ...src, selected: i };
    expect(v.reveal(sel, stage, i)).toBe(true);
    v.build(sel, stage);
    // Framed at level 1's scale (search, the Transcript, ``selected_id``).
    const k1 = (v as unknown as { fitK: number }).fitK * 1.26;
    expect(v.levelAt(k1)).toBe(1);
    expect(v.frame(i, stage, t0, k1)).not.toBeNull();
    expect(v.disp.entry[v.disp.nodeOf[i]]).toBe(i);
    expect(v.disp.isSeg[v.disp.nodeOf[i]]).toBe(0);
    expect(seen.makes).toBe(0);
    // Patched, and equal to the display built from its folds.
    const folds = (v as unknown as { cache: Map<number, { folds: TreeFolds }> }).cache.get(1)!.folds;
    const full = buildDisplay(src.cols, src.tree, src.vis, "tree", new Set(), folds.fold);
    for (const key of ["m", "entry", "isSeg", "dparent", "childStart", "childList", "nodeOf"] as const) {
      expect(v.disp[key]).toEqual(full[key]);
    }
  });

  it("folds nothing again for a selected entry the filter hides", () => {
    const { v, src } = tree();
    const hidden = 5;
    const vis = { ...src.vis, shown: src.vis.shown.slice() };
    vis.shown[hidden] = 0;
    const sel = { ...src, vis, selected: hidden };
    v.build(sel, stage);
    const seen = counted(v);
    for (let r = 0; r < 3; r++) v.build(sel, stage);
    expect(v.stale(sel, stage)).toBe(false);
    expect(seen.makes).toBe(0);
  });
});

describe("TreeView fast zoom", () => {
  it("keeps the level shown while notches come fast, then builds the asked one outside the frames", async () => {
    const s = mainLine(4000, 60, 6, 300);
    let rezooms = 0;
    const v = new TreeView({ moveTo: () => undefined, rezoom: () => rezooms++ });
    const src = { cols: s.c, tree: s.t, vis: s.v, selected: -1 };
    v.build(src, stage);
    const t0 = v.fit(stage);
    const disp = v.disp;
    // The first notch (one level) is the reader's pace: it may build. Then fast notches
    // several levels further: no build in their frames.
    v.zoomed(src, stage, new ZoomTransform(t0.k * 1.26, t0.x, t0.y));
    const shown = v.disp;
    expect(shown).not.toBe(disp);
    for (let step = 2; step <= 6; step++) {
      const t = new ZoomTransform(t0.k * 1.26 ** step, t0.x, t0.y);
      expect(v.zoomed(src, stage, t)).toBeNull();
      expect(v.disp).toBe(shown);
      // What drawing the frame records: the camera the frame showed.
      (v as unknown as { last: unknown }).last = { t, stage };
    }
    expect(rezooms).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(rezooms).toBe(1);
    // The level of the latest scale is built: asking again shows it at once.
    const t6 = new ZoomTransform(t0.k * 1.26 ** 6, t0.x, t0.y);
    expect(v.zoomed(src, stage, t6)).not.toBeNull();
    expect(v.levelAt(t6.k)).toBe(6);
    expect(v.disp).not.toBe(shown);
  });
});
