import { describe, expect, it } from "vitest";
import { ZoomTransform } from "d3-zoom";
import { FIT_K, LEVEL_STEP, READABLE_K } from "../../src/branches/aggregate";
import { extent } from "../../src/branches/framing";
import { BranchesView } from "../../src/branches/view";
import { mainLine } from "./sessions";

const stage = { width: 1000, height: 600 };

function view(n = 1000, forks = 40) {
  const s = mainLine(n, forks, 6, 150);
  const src = { cols: s.c, tree: s.t, vis: s.v, selected: -1 };
  const v = new BranchesView();
  v.build(src, stage);
  return { v, src, s };
}

/** Every box and node of the picture inside the stage at transform ``t``. */
function whole(v: BranchesView, t: ZoomTransform): boolean {
  const e = extent(v.scene, v.layout, undefined, t.k);
  return e.x0 * t.k + t.x >= 0 && e.x1 * t.k + t.x <= stage.width && e.y0 * t.k + t.y >= 0 && e.y1 * t.k + t.y <= stage.height;
}

describe("BranchesView", () => {
  it("fits the whole session, readable", () => {
    const { v } = view();
    const t = v.fit(stage);
    expect(t.k).toBeGreaterThanOrEqual(READABLE_K);
    expect(whole(v, t)).toBe(true);
    expect(v.disp.aggregates.size).toBeGreaterThan(0);
  });

  it("lets the reader zoom out past Fit", () => {
    const { v } = view();
    const t = v.fit(stage);
    expect(v.scaleExtent()[0]).toBeLessThan(t.k);
  });

  it("opens boxes level by level as the reader zooms in, keeping the middle in place", () => {
    const { v, src } = view();
    const t = v.fit(stage);
    const m0 = v.disp.m;
    const k = t.k * LEVEL_STEP ** 3 * 1.01;
    const zoomed = new ZoomTransform(k, stage.width / 2 - ((stage.width / 2 - t.x) / t.k) * k, stage.height / 2 - ((stage.height / 2 - t.y) / t.k) * k);
    const after = v.zoomed(src, stage, zoomed);
    expect(after).not.toBeNull();
    expect(v.disp.m).toBeGreaterThan(m0);
    expect(after!.k).toBe(k);
    // Back out to Fit's scale: the picture of Fit again.
    v.zoomed(src, stage, t);
    expect(v.disp.m).toBe(m0);
  });

  it("reveals an entry by opening the boxes that hold it, its run stays one box", () => {
    const { v, src, s } = view();
    v.fit(stage);
    const inside = 500; // on the main line, inside a span at Fit
    const d0 = v.disp.nodeOf[inside];
    expect(v.disp.aggregates.has(v.disp.entry[d0])).toBe(true);
    expect(v.reveal(src, stage, inside)).toBe(true);
    const d = v.disp.nodeOf[inside];
    expect(v.disp.aggregates.has(v.disp.entry[d])).toBe(false);
    expect(v.disp.isSeg[d]).toBe(1);
    expect(v.disp.expandedHeads).toEqual([]);
    // Framing it stays at a readable scale; Fit shows the whole session again.
    expect(v.frame(inside, stage, new ZoomTransform(0.2, 0, 0))!.k).toBeGreaterThanOrEqual(FIT_K);
    const t = v.fit(stage);
    expect(whole(v, t)).toBe(true);
    expect(v.disp.nodeOf[inside]).toBe(d0);
    void s;
  });

  it("opens a box on a click and frames what it held", () => {
    const { v, src } = view();
    const t = v.fit(stage);
    const d = Array.from({ length: v.disp.m }, (_, j) => j).find((j) => v.disp.aggregates.has(v.disp.entry[j]))!;
    const after = v.press(src, stage, { type: "node", d }, t);
    expect(after).not.toBeNull();
    expect(v.disp.m).toBeGreaterThan(1);
    expect(after!.k).toBeGreaterThanOrEqual(READABLE_K);
  });

  it("expanding a run is undone by Fit", () => {
    const { v, src } = view(60, 2);
    const t = v.fit(stage);
    const d = Array.from({ length: v.disp.m }, (_, j) => j).find((j) => v.disp.isSeg[j] && !v.disp.aggregates.has(v.disp.entry[j]))!;
    v.press(src, stage, { type: "node", d }, t);
    expect(v.disp.expandedHeads.length).toBe(1);
    v.fit(stage);
    expect(v.disp.expandedHeads.length).toBe(0);
  });
});

describe("BranchesView zoom focus", () => {
  /** Zoom one level in around screen point (px, py) of Fit's picture, as a wheel under the
   * pointer does (the point stays still). */
  function zoomAround(px: number, py: number) {
    const { v, src } = view();
    const t = v.fit(stage);
    // What drawing Fit's frame records: the camera the zoom starts from.
    (v as unknown as { lastT: unknown }).lastT = t;
    const k = t.k * LEVEL_STEP * 1.01;
    const r = k / t.k;
    v.zoomed(src, stage, new ZoomTransform(k, px - (px - t.x) * r, py - (py - t.y) * r));
    return { v, t, src };
  }

  /** Boxes of Fit's picture, at their screen points. */
  function fitBoxes() {
    const { v } = view();
    const t = v.fit(stage);
    const out: { head: number; x: number; y: number }[] = [];
    for (let d = 0; d < v.disp.m; d++) {
      if (v.disp.aggregates.has(v.disp.entry[d])) out.push({ head: v.disp.entry[d], x: v.layout.x[d] * t.k + t.x, y: v.layout.y[d] * t.k + t.y });
    }
    return out;
  }

  it("opens the box under the pointer first, so zooming into a region shows its detail", () => {
    const found = fitBoxes();
    expect(found.length).toBeGreaterThan(2);
    const top = found.reduce((a, b) => (b.y < a.y ? b : a));
    const bottom = found.reduce((a, b) => (b.y > a.y ? b : a));
    for (const box of [top, bottom]) {
      const { v } = zoomAround(box.x, box.y);
      // The box under the pointer opened: its head is no longer a box of the picture.
      expect(v.disp.aggregates.has(box.head)).toBe(false);
    }
    // Each zoom opened what was under its own pointer: the pictures differ.
    const a = zoomAround(top.x, top.y).v;
    const b = zoomAround(bottom.x, bottom.y).v;
    expect(a.disp.aggregates.has(bottom.head) || b.disp.aggregates.has(top.head)).toBe(true);
  });

  it("closes what the zoom opened when zooming back out", () => {
    const found = fitBoxes();
    const box = found[found.length - 1];
    const { v, t, src } = zoomAround(box.x, box.y);
    expect(v.disp.aggregates.has(box.head)).toBe(false);
    v.zoomed(src, stage, t);
    expect(v.disp.aggregates.has(box.head)).toBe(true);
  });
});

describe("BranchesView fast zoom", () => {
  it("keeps the level shown while notches come fast, then shows the asked one around the first notch's focus", async () => {
    const s = mainLine(1000, 40, 6, 150);
    const src = { cols: s.c, tree: s.t, vis: s.v, selected: -1 };
    let rezooms = 0;
    const v = new BranchesView({ moveTo: () => undefined, rezoom: () => rezooms++ });
    v.build(src, stage);
    const t0 = v.fit(stage);
    const shown = v.disp;
    const at = (k: number): ZoomTransform => new ZoomTransform(k, stage.width / 2 - ((stage.width / 2 - t0.x) / t0.k) * k, stage.height / 2 - ((stage.height / 2 - t0.y) / t0.k) * k);
    // A first notch within the level, then fast notches across levels: nothing built.
    expect(v.zoomed(src, stage, at(t0.k * 1.1))).toBeNull();
    for (let step = 2; step <= 4; step++) {
      expect(v.zoomed(src, stage, at(t0.k * 1.1 ** step * LEVEL_STEP))).toBeNull();
      expect(v.disp).toBe(shown);
    }
    expect(rezooms).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(rezooms).toBe(1);
    // The host zooms again with the camera as it is: the level is shown then.
    expect(v.zoomed(src, stage, at(t0.k * 1.1 ** 4 * LEVEL_STEP))).not.toBeNull();
    expect(v.disp).not.toBe(shown);
  });
});
