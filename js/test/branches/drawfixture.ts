/** A Branches scene with every kind of mark, and a canvas context that records what is drawn. */

import { Flag, Kind } from "../../src/model/constants";
import { buildDisplay } from "../../src/model/display";
import { visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { GRID } from "../../src/branches/aggregate";
import { baseFacts, coarsen, planOf } from "../../src/branches/coarsen";
import { SPACING, layoutDisplay } from "../../src/branches/layout";
import { buildScene, type Scene } from "../../src/branches/scene";
import { columns, id8, type Row } from "../helpers";

/** A session with branches, a compaction, labels and errors; ``expandAll`` opens every run
 * so its entries are drawn as nodes rather than one box, ``aggregate`` caps the room to
 * that many columns so parts are drawn as boxes. */
export function branchesScene(expandAll: boolean, aggregate = 0): Scene {
  const kinds = [Kind.User, Kind.Assistant, Kind.ToolResult, Kind.Assistant];
  const rows: Row[] = [];
  const add = (k: number, parent: number | null, kind: number = kinds[k % kinds.length], flags = 0): void => {
    rows.push({ id: id8(k), parent: parent === null ? null : id8(parent), kind, flags, tokens: 100 * k, time: 60 * k });
  };
  add(0, null, Kind.User);
  for (let k = 1; k <= 8; k++) add(k, k - 1);
  for (let k = 9; k <= 14; k++) add(k, k === 9 ? 3 : k - 1, undefined, k === 11 ? Flag.Error : 0);
  add(15, 8, Kind.Compaction);
  for (let k = 16; k <= 20; k++) add(k, k - 1);
  for (let k = 21; k <= 23; k++) add(k, k === 21 ? 18 : k - 1);
  // a side subtree that forks, so the view can draw it as one box
  add(24, 2, Kind.User);
  add(25, 24, Kind.Assistant);
  for (let k = 26; k <= 29; k++) add(k, 25, Kind.User);
  const c = columns(rows, {
    labelsById: { [id8(4)]: "first label", [id8(5)]: "second label", [id8(12)]: "a label on the side branch, long enough to be cut" },
    compactionsById: [[id8(15), id8(6), 12345]],
    active_leaf: 23,
  });
  const t = buildTree(c);
  const v = visibleTree(c, t, "all");
  const closed = buildDisplay(c, t, v, "branches", new Set());
  const heads = expandAll ? new Set(closed.segments.keys()) : new Set<number>();
  const base = baseFacts(closed, c, t);
  const room = { width: aggregate * GRID.dx + 2 * GRID.boxHalf + GRID.lineW, height: 20 * GRID.dy };
  const folded = aggregate ? planOf(base, coarsen(base, room, GRID)) : null;
  const d = buildDisplay(c, t, v, "branches", heads, null, folded);
  const L = layoutDisplay(d, SPACING.branches.dx, SPACING.branches.dy);
  return buildScene(c, t, d, L, "branches");
}

export type Call = [string, ...unknown[]];

/** A 2D context that logs every call and property set (numbers rounded) and measures text
 * as 6 px a character, so a drawing can be compared call for call. */
export function recordingContext(): { ctx: CanvasRenderingContext2D; log: Call[] } {
  const log: Call[] = [];
  const props: Record<string, unknown> = { fillStyle: "#000000" };
  const round = (a: unknown): unknown => (typeof a === "number" ? Math.round(a * 1000) / 1000 : Array.isArray(a) ? a.map(round) : a);
  const methods: Record<string, (...args: unknown[]) => unknown> = {
    measureText: (text) => ({ width: String(text).length * 6 }),
    createImageData: (w, h) => ({ width: w, height: h, data: new Uint8ClampedArray(Number(w) * Number(h) * 4) }),
    putImageData: (img) => {
      const data = (img as { data: Uint8ClampedArray }).data;
      let sum = 0;
      for (let i = 0; i < data.length; i++) sum = (sum * 31 + data[i]) | 0;
      return sum;
    },
  };
  const ctx = new Proxy(
    {},
    {
      get(_, name: string) {
        if (name in props) return props[name];
        return (...args: unknown[]) => {
          const out = methods[name]?.(...args);
          log.push([name, ...(name === "putImageData" ? [out] : args.map(round))]);
          return out;
        };
      },
      set(_, name: string, value: unknown) {
        props[name] = value;
        log.push([`=${name}`, round(value)]);
        return true;
      },
    },
  ) as CanvasRenderingContext2D;
  return { ctx, log };
}
