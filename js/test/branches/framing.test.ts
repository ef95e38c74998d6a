import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { FIT_MAX_K, extent, fitBranches } from "../../src/branches/framing";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { READABLE_K } from "../../src/branches/aggregate";
import { buildScene } from "../../src/branches/scene";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

describe("fitBranches", () => {
  /** A root run with ``leaves`` runs under it (each two entries, so each is a box). */
  function tidy(leaves: number) {
    const rows: Row[] = [
      { id: id8(0), parent: null, kind: Kind.User },
      { id: id8(1), parent: id8(0), kind: Kind.Assistant },
    ];
    for (let j = 1; j <= leaves; j++) {
      rows.push({ id: id8(10 * j), parent: id8(1), kind: Kind.User });
      rows.push({ id: id8(10 * j + 1), parent: id8(10 * j), kind: Kind.Assistant });
    }
    const c = columns(rows);
    const t = buildTree(c);
    const d = buildDisplay(c, t, visibleTree(c, t, "all"), "branches", new Set());
    const L = layoutDisplay(d, SPACING.branches.dx, SPACING.branches.dy);
    return { s: buildScene(c, t, d, L, "branches"), L };
  }

  it("fits a small tree whole, boxes uncut at their drawn width, no larger than 1:1", () => {
    const { s, L } = tidy(3);
    const f = fitBranches(s, L, 1200, 700);
    expect(f.k).toBeLessThanOrEqual(FIT_MAX_K);
    const e = extent(s, L);
    expect(e.x0 * f.k + f.x).toBeGreaterThanOrEqual(0);
    expect(e.x1 * f.k + f.x).toBeLessThanOrEqual(1200);
    expect(e.y0 * f.k + f.y).toBeGreaterThanOrEqual(0);
    expect(e.y1 * f.k + f.y).toBeLessThanOrEqual(700);
  });

  it("counts a lone box at its widened width (the root box was cut at the left edge)", () => {
    const { s, L } = tidy(1);
    const root = s.disp.roots[0];
    expect(s.boxHalf[root]).toBeGreaterThan(105);
    const f = fitBranches(s, L, 300, 700);
    expect((L.x[root] - s.boxHalf[root]) * f.k + f.x).toBeGreaterThanOrEqual(0);
  });

  it("never shrinks boxes below their text: too big a picture shows its top readable", () => {
    const { s, L } = tidy(200);
    const f = fitBranches(s, L, 1200, 700);
    expect(f.k).toBeCloseTo(READABLE_K);
    expect(f.y).toBeGreaterThan(0);
    expect(f.y).toBeLessThan(80);
  });
});
