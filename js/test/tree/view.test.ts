// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { TreeView } from "../../src/tree/view";
import { mainLine } from "../branches/sessions";

/** Selecting an entry in the Tree: a click selects an entry that has a row already, and
 * must not rebuild the folds; an entry inside a fold gets its row by rebuilding the level
 * shown, and the overview strip's whole picture is kept. */

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
