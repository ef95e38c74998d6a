import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { FALLBACK_BRANCH_K, fitBranches } from "../../src/branches/framing";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { BOX_TEXT_FROM_PX, BRANCH_MIN_K, SEG_H } from "../../src/branches/draw";
import { buildScene } from "../../src/branches/scene";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

describe("fitBranches", () => {
  function tidy(leaves: number) {
    const rows: Row[] = [{ id: id8(0), parent: null, kind: Kind.User }];
    for (let j = 1; j <= leaves; j++) rows.push({ id: id8(j), parent: id8(0), kind: Kind.Assistant });
    const c = columns(rows);
    const t = buildTree(c);
    const d = buildDisplay(c, t, visibleTree(c, t, "all"), "branches", new Set());
    const L = layoutDisplay(d, SPACING.branches.dx, SPACING.branches.dy);
    return { s: buildScene(c, t, d, L, "branches"), L };
  }

  it("fits a small tree whole", () => {
    const { s, L } = tidy(3);
    const f = fitBranches(s, L, 1200, 700);
    expect(f.k).toBeGreaterThanOrEqual(BRANCH_MIN_K);
    expect(L.minX * f.k + f.x).toBeGreaterThan(0);
    expect(L.maxX * f.k + f.x).toBeLessThan(1200);
  });

  it("never shrinks boxes below their text: a wide tree opens readable, from the top", () => {
    const { s, L } = tidy(200);
    const f = fitBranches(s, L, 1200, 700);
    expect(f.k).toBeGreaterThanOrEqual(FALLBACK_BRANCH_K);
    expect(SEG_H * f.k).toBeGreaterThanOrEqual(BOX_TEXT_FROM_PX);
    expect(f.y).toBeGreaterThan(0);
    expect(f.y).toBeLessThan(80);
  });
});
