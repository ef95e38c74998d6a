/**
 * Levels of detail for the Branches view, in grid units (no DOM): which parts of a
 * session are drawn as one box so that the whole picture fits a given room at a scale
 * where every box carries its text.
 *
 * The picture starts as coarse as it can be: the active path is one "span" box (its
 * stretch of entries, with whatever forks off it) above the box of the active leaf's run;
 * the other roots are one "roots" box. Then boxes open as long as the tidy layout of what
 * is shown still fits the room, counted in both directions: first the spine, down the
 * height (a span splits in two at its middle; a run of one node shows itself, its side
 * branches as one "branches" box); then, across the width, each span sheds its side
 * branches into a box of their own beside the spine, so the reader sees where the
 * session forked and how much branched off there; then the boxes of subtrees, largest
 * first (a box of several subtrees splits in two halves, side by side; a box of one
 * subtree shows its head run and its children's box below). So a session that fits is
 * drawn whole, and a bigger one fills the room with as much shape as it allows,
 * aggregated with figures instead of shrunk to dots. Boxes the reader opened open first,
 * whatever the room.
 */

import { Flag, Kind } from "../model/constants";
import type { Columns } from "../model/data";
import { type AggregateInfo, type AggregatePlan, childColumns, type Display, peakTokens } from "../model/display";
import type { Tree } from "../model/tree";
import { layoutDisplay, type Layout, type TreeShape } from "./layout";
import { wrapRoots, type Wrap } from "./wrap";

/** World room (at the layout's units) the whole picture must fit in. */
export interface Room {
  width: number;
  height: number;
}

/** Grid spacing and box size the room is measured with (world units). */
export interface Grid {
  dx: number;
  dy: number;
  /** Half the widest a box may be drawn (boxes widen into free room beside them). */
  boxHalf: number;
  boxH: number;
  /** Half a plain node (an entry, not a box), and the room its first line takes to its
   * right (world units at the scale the room is for). */
  nodeHalf: number;
  lineW: number;
}

/** What the levels are computed from: the display with every run as one node, and per
 * node its entries, its subtree's entries and its place on the active path. */
export interface Base {
  disp: Display;
  cols: Columns;
  tree: Tree;
  /** Entries drawn by each display node (a run's length, or 1). */
  size: Int32Array;
  /** Entries in each display node's subtree. */
  sub: Float64Array;
  /** Display nodes of the active path, root first (the path of the first root when no
   * entry is active). */
  spine: Int32Array;
  /** Next node on the spine (-1: off it, or its last node). */
  next: Int32Array;
  /** 1-based position along the spine of each spine node's first entry. */
  pos: Float64Array;
  active: boolean;
}

/** One thing drawn in the coarse picture: a display node as itself, a box of sibling
 * subtrees (``nodes`` their heads), or a span of the spine (``nodes`` its path). */
export interface Unit {
  kind: "node" | "group" | "span";
  nodes: number[];
  children: Unit[];
  spine: boolean;
  entries: number;
  /** A span whose side branches hang beside it as boxes of their own (its children),
   * rather than folded into it: the picture widens instead of growing taller. */
  shed?: boolean;
}

/** How a box opens: a span splits in two (taller) or sheds its side branches (wider);
 * any other box opens its one way. */
export type Act = "split" | "shed" | "open";

const childrenOf = (disp: Display, d: number): Int32Array => disp.childList.subarray(disp.childStart[d], disp.childStart[d + 1]);

/** The facts about ``disp`` (a Branches display without aggregates) levels are made of. */
export function baseFacts(disp: Display, cols: Columns, tree: Tree): Base {
  const m = disp.m;
  const size = new Int32Array(m);
  const sub = new Float64Array(m);
  for (let d = 0; d < m; d++) size[d] = disp.isSeg[d] ? (disp.segments.get(disp.entry[d])?.size ?? 1) : 1;
  // Display nodes are numbered parents first: children are summed before their parent.
  for (let d = m - 1; d >= 0; d--) {
    sub[d] += size[d];
    const p = disp.dparent[d];
    if (p >= 0) sub[p] += sub[d];
  }
  const onActive = (d: number): boolean => tree.onActive[disp.entry[d]] === 1;
  const next = new Int32Array(m).fill(-1);
  const pos = new Float64Array(m);
  const spine: number[] = [];
  let active = false;
  if (m) {
    let d = disp.roots[0];
    for (const r of disp.roots) {
      if (onActive(r)) {
        d = r;
        active = true;
        break;
      }
    }
    let at = 1;
    for (;;) {
      spine.push(d);
      pos[d] = at;
      at += size[d];
      const kids = childrenOf(disp, d);
      if (!kids.length) break;
      let c = -1;
      for (const k of kids) if (active ? onActive(k) : c < 0 || sub[k] > sub[c]) c = k;
      if (c < 0) break;
      next[d] = c;
      d = c;
    }
  }
  return { disp, cols, tree, size, sub, spine: Int32Array.from(spine), next, pos, active };
}

/** A box of sibling subtrees, or the node itself when it is one childless node. */
function groupOf(b: Base, heads: number[]): Unit {
  if (heads.length === 1 && !childrenOf(b.disp, heads[0]).length) return { kind: "node", nodes: heads, children: [], spine: false, entries: b.size[heads[0]] };
  let entries = 0;
  for (const h of heads) entries += b.sub[h];
  return { kind: "group", nodes: heads, children: [], spine: false, entries };
}

/** The heads of the side branches leaving ``path`` (a stretch of the spine). */
function sidesOf(b: Base, path: number[]): number[] {
  const out: number[] = [];
  for (const d of path) for (const c of childrenOf(b.disp, d)) if (c !== b.next[d]) out.push(c);
  return out;
}

/** A stretch of the spine: one node (its side branches as one box, then ``cont``) or a
 * span box holding the stretch and its side branches, followed by ``cont``. A ``shed``
 * span holds only its stretch; its side branches are one box beside ``cont``. */
function spineUnit(b: Base, path: number[], cont: Unit[], shed = false): Unit {
  const last = path[path.length - 1];
  if (path.length === 1 || shed) {
    const sides = sidesOf(b, path);
    const children = sides.length ? [groupOf(b, sides), ...cont] : cont;
    if (path.length === 1) return { kind: "node", nodes: path, children, spine: true, entries: b.size[last] };
    let own = 0;
    for (const d of path) own += b.size[d];
    return { kind: "span", nodes: path, children, spine: true, entries: own, shed: sides.length > 0 };
  }
  const after = b.next[last];
  return { kind: "span", nodes: path, children: cont, spine: true, entries: b.sub[path[0]] - (after >= 0 ? b.sub[after] : 0) };
}


/** The coarsest picture: the spine as a span above its last node, other roots as one box. */
export function coarsest(b: Base): Unit[] {
  const { disp, spine } = b;
  if (!disp.m) return [];
  const L = spine.length;
  const tail = spineUnit(b, [spine[L - 1]], []);
  const main = L > 1 ? spineUnit(b, Array.from(spine.subarray(0, L - 1)), [tail]) : tail;
  const others = Array.from(disp.roots).filter((r) => r !== spine[0]);
  if (!others.length) return [main];
  const rest = groupOf(b, others);
  return others[0] < spine[0] ? [rest, main] : [main, rest];
}

/** What replaces a box when it opens one step (``act``: how; a span splits unless told
 * to shed). */
export function expand(b: Base, u: Unit, act: Act = "open"): Unit[] {
  if (u.kind === "span" && act === "shed") {
    const cont = u.children.filter((c) => c.spine);
    return [spineUnit(b, u.nodes, cont, true)];
  }
  if (u.kind === "group") {
    // Several subtrees: two halves (one box each, or the subtree itself), so the
    // picture widens a little at a time.
    if (u.nodes.length > 2) {
      const half = Math.ceil(u.nodes.length / 2);
      return [groupOf(b, u.nodes.slice(0, half)), groupOf(b, u.nodes.slice(half))];
    }
    if (u.nodes.length > 1) return u.nodes.map((h) => groupOf(b, [h]));
    const h = u.nodes[0];
    const kids = Array.from(childrenOf(b.disp, h));
    return [{ kind: "node", nodes: [h], children: kids.length ? [groupOf(b, kids)] : [], spine: false, entries: b.size[h] }];
  }
  if (u.kind === "span") {
    // Split where the entries before reach half of the span's own (at least one node a side).
    const path = u.nodes;
    const own = path.map((d) => b.sub[d] - (b.next[d] >= 0 ? b.sub[b.next[d]] : 0));
    const total = own.reduce((a, c) => a + c, 0);
    let j = 1;
    for (let acc = own[0]; j < path.length - 1 && acc + own[j] / 2 < total / 2; j++) acc += own[j];
    // A shed span's halves shed too; its side boxes are made again for each half.
    const shed = u.shed === true;
    const cont = shed ? u.children.filter((c) => c.spine) : u.children;
    const second = spineUnit(b, path.slice(j), cont, shed);
    return [spineUnit(b, path.slice(0, j), [second], shed)];
  }
  return [u];
}

/** ``units`` with every unit in ``open`` opened one step (a set: each its usual way; a
 * map: the way it gives). */
export function apply(b: Base, units: Unit[], open: ReadonlySet<Unit> | ReadonlyMap<Unit, Act>): Unit[] {
  const out: Unit[] = [];
  for (const u of units) {
    if (open.has(u)) out.push(...apply(b, expand(b, u, open instanceof Map ? open.get(u) : undefined), open));
    else out.push(u.children.length ? { ...u, children: apply(b, u.children, open) } : u);
  }
  return out;
}

/** Boxes that could open, in the picture's order. */
export function boxes(units: Unit[], out: Unit[] = []): Unit[] {
  for (const u of units) {
    if (u.kind !== "node") out.push(u);
    boxes(u.children, out);
  }
  return out;
}

/** The unit's first display node (its box's key): the smallest, as parents come first.
 * (A loop: a spread of a 100k-node path overflows the call stack.) */
function firstNode(u: Unit): number {
  let m = u.nodes[0];
  for (const d of u.nodes) if (d < m) m = d;
  return m;
}

const keyOf = (u: Unit, act: Act): string => `${act}:${u.kind}:${u.nodes[0]}:${u.nodes.length}`;

/** A way to open a box, and what decides its turn. */
interface Cand {
  u: Unit;
  act: Act;
  key: string;
  /** 0: a span splits (the spine's stretches, taller), 1: a span sheds its side branches
   * (wider), 2: a box of subtrees opens. */
  rank: number;
  /** Entries the opening shows apart. */
  entries: number;
}

/** How each box of ``units`` may open next, in turn: the spine first, split down the
 * height; then side branches beside it, across the width; then the boxes of subtrees,
 * largest first. A span sheds once it cannot split. */
function candidates(b: Base, units: Unit[], closed: ReadonlySet<string>): Cand[] {
  const out: Cand[] = [];
  for (const u of boxes(units)) {
    if (u.kind === "group") {
      const key = keyOf(u, "open");
      if (!closed.has(key)) out.push({ u, act: "open", key, rank: 2, entries: u.entries });
      continue;
    }
    const split = keyOf(u, "split");
    if (u.nodes.length > 1 && !closed.has(split)) {
      out.push({ u, act: "split", key: split, rank: 0, entries: u.entries });
      continue;
    }
    const shed = keyOf(u, "shed");
    if (u.shed || closed.has(shed)) continue;
    let own = 0;
    for (const d of u.nodes) own += b.size[d];
    if (own < u.entries) out.push({ u, act: "shed", key: shed, rank: 1, entries: u.entries - own });
  }
  return out.sort((p, q) => p.rank - q.rank || q.entries - p.entries);
}

/** The coarse picture as a graph a tidy layout takes (units numbered parents first). */
export function shapeOf(units: Unit[]): { shape: TreeShape; list: Unit[]; onMain: Uint8Array } {
  const list: Unit[] = [];
  const parent: number[] = [];
  const walk = (us: Unit[], p: number): void => {
    for (const u of us) {
      const id = list.length;
      list.push(u);
      parent.push(p);
      walk(u.children, id);
    }
  };
  walk(units, -1);
  const m = list.length;
  const { childStart, childList, roots } = childColumns(parent);
  const onMain = Uint8Array.from(list, (u) => (u.spine ? 1 : 0));
  return { shape: { m, roots, childStart, childList }, list, onMain };
}

/** Tidy layout of the coarse picture, laid out as the view lays out its display. */
export function layoutUnits(units: Unit[], grid: Grid): Layout {
  const { shape, onMain } = shapeOf(units);
  return layoutDisplay(shape, grid.dx, grid.dy, (d) => onMain[d] === 1);
}

/** How far a node reaches beside its centre (``box``: drawn as a box, else a plain node
 * with its first line to its right), and the roots wrapped into rows of the room's width. */
export function wrapFor(room: Room, grid: Grid, box: (d: number) => boolean): Wrap {
  return {
    width: room.width,
    gap: grid.dx / 4,
    left: (d) => (box(d) ? grid.boxHalf : grid.nodeHalf),
    right: (d) => (box(d) ? grid.boxHalf : grid.lineW),
  };
}

/** Whether the picture fits the room: boxes at their widest, plain nodes with their
 * first line, roots wrapped into rows when they are wider together than the room. */
export function fits(b: Base, units: Unit[], room: Room, grid: Grid): boolean {
  const { shape, list, onMain } = shapeOf(units);
  const plainAt = (d: number): boolean => list[d].kind === "node" && !b.disp.isSeg[list[d].nodes[0]];
  const L = wrapRoots(
    shape,
    layoutDisplay(shape, grid.dx, grid.dy, (d) => onMain[d] === 1),
    wrapFor(room, grid, (d) => !plainAt(d)),
  );
  if (L.maxY - L.minY + grid.boxH > room.height) return false;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (let d = 0; d < shape.m; d++) {
    const plain = plainAt(d);
    x0 = Math.min(x0, L.x[d] - (plain ? grid.nodeHalf : grid.boxHalf));
    x1 = Math.max(x1, L.x[d] + (plain ? grid.lineW : grid.boxHalf));
  }
  return x1 - x0 <= room.width;
}

/** The picture for ``room``: boxes the reader opened (by head entry), then boxes in the
 * turn ``candidates`` gives, as many at a time as still let it fit (a box that cannot
 * open is passed over and the rest tried). */
export function coarsen(b: Base, room: Room, grid: Grid, opened: ReadonlySet<number> = new Set()): Unit[] {
  let units = coarsest(b);
  // A stage too narrow for the active root beside a box of the others: all roots in one.
  if (b.disp.roots.length > 1 && !fits(b, units, room, grid)) units = [groupOf(b, Array.from(b.disp.roots))];
  const entryOf = (u: Unit): number => b.disp.entry[firstNode(u)];
  // A box the reader opened may only appear once boxes around it opened: open them
  // whenever they show up.
  const openForced = (): void => {
    for (let guard = 0; guard < 256 && opened.size; guard++) {
      const forced = boxes(units).filter((u) => opened.has(entryOf(u)));
      if (!forced.length) break;
      units = apply(b, units, new Set(forced));
    }
  };
  const closed = new Set<string>();
  const upTo = (cands: Cand[], j: number): Map<Unit, Act> => new Map(cands.slice(0, j).map((c) => [c.u, c.act]));
  for (let round = 0; round < 400; round++) {
    openForced();
    const cands = candidates(b, units, closed);
    if (!cands.length) break;
    const test = (j: number): boolean => fits(b, apply(b, units, upTo(cands, j)), room, grid);
    let j = cands.length;
    if (!test(j)) {
      let lo = 0;
      let hi = j;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (test(mid)) lo = mid;
        else hi = mid;
      }
      j = lo;
    }
    if (j === 0) {
      closed.add(cands[0].key);
      continue;
    }
    units = apply(b, units, upTo(cands, j));
  }
  openForced();
  return units;
}

/** The boxes of a picture as the display builder takes them: each entry's box head and
 * each box's figures. Null when nothing is drawn as a box. */
export function planOf(b: Base, units: Unit[]): AggregatePlan | null {
  return boxesOf(b, units)?.plan ?? null;
}

/** The boxes of a picture: the plan, and per display node of ``b`` the box holding it
 * (-1: none) with each box's first display node. */
export function boxesOf(b: Base, units: Unit[]): { plan: AggregatePlan; boxOf: Int32Array; first: number[] } | null {
  const { disp, cols } = b;
  const list = boxes(units);
  if (!list.length) return null;
  const boxOf = new Int32Array(disp.m).fill(-1);
  const info = new Map<number, AggregateInfo>();
  const keys: number[] = [];
  const first: number[] = [];
  list.forEach((u, g) => {
    const d0 = firstNode(u);
    const key = disp.entry[d0];
    keys.push(key);
    first.push(d0);
    const a: AggregateInfo = {
      head: key,
      kind: u.kind === "span" ? "span" : disp.dparent[u.nodes[0]] < 0 ? "roots" : "branches",
      branches: 0,
      entries: 0,
      tokens: 0,
      output: 0,
      errors: 0,
      labels: 0,
      forks: 0,
      compactions: 0,
      subtrees: u.kind === "span" ? 1 : u.nodes.length,
      onActive: b.active && (u.kind === "span" || u.nodes.includes(b.spine[0])),
      from: 0,
      to: 0,
    };
    const count = (d: number): void => {
      boxOf[d] = g;
      const i = disp.entry[d];
      const s = disp.isSeg[d] ? disp.segments.get(i) : undefined;
      const kids = disp.childStart[d + 1] - disp.childStart[d];
      a.entries += b.size[d];
      a.tokens = peakTokens(a.tokens, s ? s.tokens : cols.tokens[i]);
      a.output += s ? s.output : cols.output[i];
      a.errors += s ? s.errors : cols.flags[i] & Flag.Error ? 1 : 0;
      a.labels += s ? s.labels : cols.labels.has(i) ? 1 : 0;
      a.compactions += s ? s.compactions : cols.kind[i] === Kind.Compaction ? 1 : 0;
      if (kids > 1) a.forks++;
      if (!kids) a.branches++;
    };
    const subtree = (h: number, stop: number): void => {
      const stack = [h];
      while (stack.length) {
        const d = stack.pop() as number;
        count(d);
        for (const c of childrenOf(disp, d)) if (c !== stop) stack.push(c);
      }
    };
    if (u.kind === "span") {
      const last = u.nodes[u.nodes.length - 1];
      if (u.shed) for (const d of u.nodes) count(d);
      else subtree(u.nodes[0], b.next[last]);
      a.from = b.pos[u.nodes[0]];
      a.to = b.pos[last] + b.size[last] - 1;
    } else for (const h of u.nodes) subtree(h, -1);
    info.set(key, a);
  });
  const of = new Int32Array(cols.n).fill(-1);
  for (let i = 0; i < cols.n; i++) {
    const d = disp.nodeOf[i];
    if (d >= 0 && boxOf[d] >= 0) of[i] = keys[boxOf[d]];
  }
  return { plan: { of, info }, boxOf, first };
}
