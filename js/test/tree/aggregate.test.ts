import { describe, expect, it } from "vitest";
import { Flag, Kind } from "../../src/model/constants";
import { buildDisplay, refold } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { foldToFit, openFold, summaryText } from "../../src/tree/aggregate";
import { layoutLanes } from "../../src/tree/lanes";
import { columns, id8, type Row } from "../helpers";

/** A main line of ``mainLen`` entries with ``forks`` forks spread along it (each with
 * ``sides`` side branches of ``sideLen`` entries), a compaction every ``every`` entries, an
 * error now and then, and ``roots - 1`` more roots of 20 entries each. The active leaf is
 * the main line's end. */
function session(o: { mainLen: number; forks: number; sides: number; sideLen: number; every?: number; roots?: number }) {
  const rows: Row[] = [];
  const kinds = [Kind.User, Kind.Assistant, Kind.ToolResult];
  const add = (parent: string | null, kind: number, flags = 0): string => {
    const id = id8(rows.length);
    rows.push({ id, parent, kind, flags, tokens: 100, time: rows.length });
    return id;
  };
  const mainIds: string[] = [];
  let prev: string | null = null;
  for (let j = 0; j < o.mainLen; j++) {
    const kind = o.every && j > 0 && j % o.every === 0 ? Kind.Compaction : kinds[j % 3];
    prev = add(prev, kind, j % 97 === 50 ? Flag.Error : 0);
    mainIds.push(prev);
  }
  const activeLeaf = rows.length - 1;
  for (let f = 0; f < o.forks; f++) {
    const at = mainIds[Math.floor(((f + 1) * o.mainLen) / (o.forks + 2))];
    for (let s = 0; s < o.sides; s++) {
      let p: string = at;
      for (let j = 0; j < o.sideLen; j++) p = add(p, kinds[j % 3]);
    }
  }
  for (let r = 1; r < (o.roots ?? 1); r++) {
    let p: string | null = null;
    for (let j = 0; j < 20; j++) p = add(p, kinds[j % 3]);
  }
  const c = columns(rows, { active_leaf: activeLeaf });
  const t = buildTree(c);
  return { c, t, v: visibleTree(c, t, "all"), activeLeaf };
}

const SHAPES = {
  "17 leaves": { mainLen: 300, forks: 8, sides: 2, sideLen: 12, every: 80 },
  "1,000 entries, 40 forks": { mainLen: 600, forks: 40, sides: 1, sideLen: 10, every: 150 },
  "24 roots": { mainLen: 200, forks: 3, sides: 1, sideLen: 8, roots: 24 },
  "100k entries": { mainLen: 60_000, forks: 400, sides: 4, sideLen: 25, every: 170 },
};

describe("foldToFit", () => {
  it("keeps every entry on its own row when the session fits", () => {
    const { c, t, v } = session({ mainLen: 20, forks: 1, sides: 1, sideLen: 3 });
    const f = foldToFit(c, t, v, 100);
    expect(f.fold).toBeNull();
    expect(f.level).toBe(0);
  });

  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`fits ${name} in the budget, root, active leaf and selection on rows of their own`, { timeout: 30_000 }, () => {
      const { c, t, v, activeLeaf } = session(shape);
      for (const budget of [20, 33, 60, 200]) {
        const keep = [Math.floor(c.n * 0.9)];
        const f = foldToFit(c, t, v, budget, keep);
        const disp = buildDisplay(c, t, v, "tree", new Set(), f.fold);
        expect(disp.m).toBe(f.rows);
        expect(f.rows).toBeLessThanOrEqual(budget);
        if (f.level === 3) expect(f.rows).toBeGreaterThan(budget / 3);
        for (const i of [0, activeLeaf, ...keep]) expect(disp.isSeg[disp.nodeOf[i]], `entry ${i}`).toBe(0);
        // the main line stays one chain: no display node has two children on it
        for (let x = 0; x < disp.m; x++) {
          let onPath = 0;
          for (let k = disp.childStart[x]; k < disp.childStart[x + 1]; k++) onPath += t.onActive[disp.entry[disp.childList[k]]];
          expect(onPath, `node ${x}`).toBeLessThanOrEqual(1);
        }
        // every shown entry is drawn by some row, and the layout is in rows
        let unseen = 0;
        for (let i = 0; i < c.n; i++) if (disp.nodeOf[i] < 0) unseen++;
        expect(unseen).toBe(0);
        const L = layoutLanes(c, t, disp);
        expect(L.maxY).toBe((disp.m - 1) * L.dy);
        // every folded row says what it holds
        for (const [h, s] of f.summaries) {
          expect(disp.isSeg[disp.nodeOf[h]]).toBe(1);
          const text = summaryText(s);
          if (s.kind !== "run") expect(text).toMatch(/^▸ /);
        }
      }
    });
  }

  it("folds side branches before the main line, and the main line around its landmarks", () => {
    const { c, t, v } = session(SHAPES["1,000 entries, 40 forks"]);
    const roomy = foldToFit(c, t, v, 160);
    expect(roomy.level).toBe(2);
    expect([...roomy.summaries.values()].some((s) => s.kind === "sides" && s.branches === 1 && s.entries === 10)).toBe(true);
    const tight = foldToFit(c, t, v, 25);
    expect(tight.level).toBe(3);
    const stretches = [...tight.summaries.values()].filter((s) => s.kind === "stretch");
    expect(stretches.length).toBeGreaterThan(2);
    const text = stretches.map((s) => summaryText(s)).join("\n");
    expect(text).toMatch(/forks?/);
    // the compactions are the first landmarks kept on rows of their own
    const disp = buildDisplay(c, t, v, "tree", new Set(), tight.fold);
    let ownCompactions = 0;
    for (let i = 0; i < c.n; i++) if (c.kind[i] === Kind.Compaction && disp.isSeg[disp.nodeOf[i]] === 0) ownCompactions++;
    expect(ownCompactions).toBe(3);
  });

  it("keeps entries with an error on rows of their own, even two in one run", () => {
    // an error is no landmark for the runs of level 2: the errors at 1 and 2 sit in the
    // run 1..149; a fork at 150 (a side branch of 5) makes level 3 too tall for 5 rows
    const rows: Row[] = [];
    for (let j = 0; j < 200; j++) {
      rows.push({ id: id8(j), parent: j ? id8(j - 1) : null, kind: Kind.User, flags: j === 1 || j === 2 ? Flag.Error : 0 });
    }
    for (let s = 0; s < 5; s++) rows.push({ id: id8(rows.length), parent: id8(s ? rows.length - 1 : 150), kind: Kind.User });
    const c = columns(rows, { active_leaf: 199 });
    const t = buildTree(c);
    const v = visibleTree(c, t, "all");
    const f = foldToFit(c, t, v, 5);
    const disp = buildDisplay(c, t, v, "tree", new Set(), f.fold);
    expect(f.level).toBe(3);
    expect(disp.m).toBe(f.rows);
    for (const i of [1, 2]) expect(disp.isSeg[disp.nodeOf[i]], `entry ${i}`).toBe(0);
  });

  it("folds the other roots into one row", () => {
    const { c, t, v } = session(SHAPES["24 roots"]);
    const f = foldToFit(c, t, v, 40);
    const roots = [...f.summaries.values()].filter((s) => s.kind === "roots");
    expect(roots.length).toBe(1);
    expect(summaryText(roots[0])).toMatch(/^▸ 23 more roots · 460 entries/);
    expect(summaryText({ ...roots[0], output: 12_345 })).toMatch(/ · 12k output tokens$/);
  });

  it("opens more as the budget grows: rows never fewer for a larger budget", { timeout: 30_000 }, () => {
    const { c, t, v } = session(SHAPES["100k entries"]);
    let last = 0;
    for (const budget of [33, 50, 80, 130, 200, 400, 800]) {
      const f = foldToFit(c, t, v, budget);
      expect(f.rows).toBeGreaterThanOrEqual(last);
      expect(f.rows).toBeLessThanOrEqual(budget);
      last = f.rows;
    }
  });
});

describe("openFold", () => {
  it("gives an entry inside a fold its row with two rows more, the other folds as they were", () => {
    for (const shape of [SHAPES["17 leaves"], SHAPES["24 roots"], SHAPES["1,000 entries, 40 forks"]]) {
      const { c, t, v } = session(shape);
      const f = foldToFit(c, t, v, 30);
      const fold = f.fold!;
      // entries inside folds of every kind, at the head, in the middle and at the end
      const picks = new Map<string, number>();
      for (let i = 0; i < c.n; i++) {
        const h = fold[i];
        if (h < 0) continue;
        const kind = f.summaries.get(h)!.kind;
        picks.set(`${kind}:${i === h ? "head" : "in"}`, i);
        if (!picks.has(`${kind}:first`)) picks.set(`${kind}:first`, i);
      }
      expect(picks.size).toBeGreaterThan(2);
      for (const [what, i] of picks) {
        const g = openFold(c, t, v, f, i)!;
        expect(g, what).not.toBeNull();
        expect(g.fold![i], what).toBe(-1);
        expect(g.rows - f.rows, what).toBeGreaterThanOrEqual(0);
        expect(g.rows - f.rows, what).toBeLessThanOrEqual(2);
        const disp = buildDisplay(c, t, v, "tree", new Set(), g.fold);
        expect(disp.m, what).toBe(g.rows);
        // The display made from the one before, for the fold that changed only, is the
        // display built from every entry.
        const was = buildDisplay(c, t, v, "tree", new Set(), fold);
        const re = refold(was, c, t, v, fold, g.fold!, fold[i]);
        for (const key of ["m", "entry", "isSeg", "dparent", "childStart", "childList", "roots", "nodeOf"] as const) {
          expect(re[key], `${what} ${key}`).toEqual(disp[key]);
        }
        expect(new Map([...re.folds].map(([h, x]) => [h, [x.size, x.tail, x.output, x.tokens]]))).toEqual(
          new Map([...disp.folds].map(([h, x]) => [h, [x.size, x.tail, x.output, x.tokens]])),
        );
        expect(disp.isSeg[disp.nodeOf[i]], what).toBe(0);
        expect(disp.entry[disp.nodeOf[i]], what).toBe(i);
        // entries of other folds keep their fold; every entry is drawn; figures add up
        let entries = 0;
        for (let e = 0; e < c.n; e++) {
          if (fold[e] !== fold[i] && fold[e] >= 0) expect(g.fold![e]).toBe(fold[e]);
          expect(disp.nodeOf[e]).toBeGreaterThanOrEqual(0);
        }
        for (const sum of g.summaries.values()) entries += sum.entries;
        let folded = 0;
        for (let e = 0; e < c.n; e++) if (g.fold![e] >= 0) folded++;
        expect(entries, what).toBe(folded);
      }
      // nothing to open for an entry on a row of its own
      const row = Array.from({ length: c.n }, (_, j) => j).find((j) => fold[j] < 0)!;
      expect(openFold(c, t, v, f, row)).toBeNull();
    }
  });
});
