/**
 * The display graph: what is drawn. In the tree view every shown entry is a node; in the
 * branch view each run of shown entries without a fork is one segment node (unless expanded).
 */

import { Flag, Kind, type ViewMode } from "./constants";
import type { Columns } from "./data";
import type { Visible } from "./filter";
import type { Tree } from "./tree";

export interface SegmentInfo {
  head: number;
  tail: number;
  size: number;
  /** the largest turn total among the run's entries: the context the model read at that
   * turn plus its answer (see {@link peakTokens}) */
  tokens: number;
  /** output tokens written in the run, summed */
  output: number;
  flags: number;
  labels: number;
  compactions: number;
  onActive: boolean;
  users: number;
  assistants: number;
  tools: number;
  others: number;
  t0: number;
  t1: number;
  /** first user message and first labelled entry in the run (-1: none) */
  firstUser: number;
  firstLabel: number;
  /** entries that failed (tool errors, aborted or failed turns) */
  errors: number;
}

/** Part of the session drawn as one box in the Branches view (``branches/coarsen.ts``):
 * side subtrees ("branches"), roots beside the active one ("roots"), or a stretch of the
 * active path with what forks off it ("span"). */
export interface AggregateInfo {
  head: number;
  kind: "branches" | "roots" | "span";
  /** leaves (branch ends) under it */
  branches: number;
  entries: number;
  /** the largest turn total inside ({@link peakTokens}) */
  tokens: number;
  /** output tokens written inside, summed */
  output: number;
  errors: number;
  labels: number;
  forks: number;
  compactions: number;
  /** the subtrees it holds (roots, or side branches of one fork) */
  subtrees: number;
  /** a span: whether it lies on the active path, and the positions along the path
   * (1-based, shown entries) of its first and last entries */
  onActive: boolean;
  from: number;
  to: number;
}

/** Which entries the Branches view draws as one box: the box's head entry for each entry
 * (-1: drawn as usual), and each box's figures by head. */
export interface AggregatePlan {
  of: Int32Array;
  info: Map<number, AggregateInfo>;
}

export interface Display {
  m: number;
  /** Entry index of the node (the head entry for a segment). */
  entry: Int32Array;
  /** 1 for a collapsed segment of more than one entry, or a folded run (tree view). */
  isSeg: Uint8Array;
  /** Display parent (-1 for roots). */
  dparent: Int32Array;
  childStart: Int32Array;
  childList: Int32Array;
  roots: Int32Array;
  /** Display node holding each entry (-1 if hidden). */
  nodeOf: Int32Array;
  /** Segment head of every shown entry (-1 if hidden). */
  segOf: Int32Array;
  /** Segment details by head entry. */
  segments: Map<number, SegmentInfo>;
  /** Heads of expanded segments of more than one entry (branch view). */
  expandedHeads: number[];
  /** Folded runs of the tree view by first entry (their nodes have ``isSeg`` 1). */
  folds: Map<number, SegmentInfo>;
  /** Subtrees drawn as one box (branch view) by head entry (their nodes have ``isSeg`` 1). */
  aggregates: Map<number, AggregateInfo>;
}

/** Shown children of each shown entry, in the tree's order, as CSR arrays. */
/** Each node's children as compact columns: node d's are childList[childStart[d] ..
 * childStart[d + 1]), and the roots, both in index order. */
export function childColumns(parent: ArrayLike<number>): {
  childStart: Int32Array;
  childList: Int32Array;
  roots: Int32Array;
} {
  const m = parent.length;
  const childStart = new Int32Array(m + 1);
  const roots: number[] = [];
  for (let d = 0; d < m; d++) {
    if (parent[d] >= 0) childStart[parent[d] + 1]++;
    else roots.push(d);
  }
  for (let d = 0; d < m; d++) childStart[d + 1] += childStart[d];
  const fill = childStart.slice(0, m);
  const childList = new Int32Array(childStart[m]);
  for (let d = 0; d < m; d++) if (parent[d] >= 0) childList[fill[parent[d]]++] = d;
  return { childStart, childList, roots: Int32Array.from(roots) };
}

function shownChildren(tree: Tree, vis: Visible): { start: Int32Array; list: Int32Array; roots: number[] } {
  const n = tree.n;
  const start = new Int32Array(n + 1);
  const roots: number[] = [];
  const { order } = tree;
  for (let k = 0; k < n; k++) {
    const c = order[k];
    if (!vis.shown[c]) continue;
    const p = vis.vparent[c];
    if (p >= 0) start[p + 1]++;
    else roots.push(c);
  }
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const fill = start.slice(0, n);
  const list = new Int32Array(start[n]);
  for (let k = 0; k < n; k++) {
    const c = order[k];
    if (!vis.shown[c]) continue;
    const p = vis.vparent[c];
    if (p >= 0) list[fill[p]++] = c;
  }
  return { start, list, roots };
}

/**
 * The token figure of many entries taken together: the largest of their turn totals.
 * A turn's total already holds the whole context the model read, so adding the totals of
 * several turns counts that context once per turn (ten turns over a 50k context would
 * say 500k). The largest is the most context the run held, which is what a reader of a
 * folded row needs to know.
 */
export function peakTokens(figure: number, tokens: number): number {
  return tokens > figure ? tokens : figure;
}

function newSegment(head: number): SegmentInfo {
  return {
    head,
    tail: head,
    size: 0,
    tokens: 0,
    output: 0,
    flags: 0,
    labels: 0,
    compactions: 0,
    onActive: false,
    users: 0,
    assistants: 0,
    tools: 0,
    others: 0,
    t0: Infinity,
    t1: -Infinity,
    firstUser: -1,
    firstLabel: -1,
    errors: 0,
  };
}

/** Count entry ``i`` into a run's figures. */
function addEntry(s: SegmentInfo, cols: Columns, tree: Tree, i: number): void {
  s.tail = i;
  s.size++;
  s.tokens = peakTokens(s.tokens, cols.tokens[i]);
  s.output += cols.output[i];
  s.flags |= cols.flags[i];
  if (cols.flags[i] & Flag.Error) s.errors++;
  if (cols.labels.has(i)) {
    s.labels++;
    if (s.firstLabel < 0) s.firstLabel = i;
  }
  if (tree.onActive[i]) s.onActive = true;
  const kind = cols.kind[i];
  if (kind === Kind.User) {
    s.users++;
    if (s.firstUser < 0) s.firstUser = i;
  }
  else if (kind === Kind.Assistant) s.assistants++;
  else if (kind === Kind.ToolResult || kind === Kind.Bash) s.tools++;
  else s.others++;
  if (kind === Kind.Compaction) s.compactions++;
  const t = cols.time[i];
  if (t < s.t0) s.t0 = t;
  if (t > s.t1) s.t1 = t;
}

/** Build the display graph. `expanded` holds segment heads the user opened; `fold` (tree
 * view) the folded run of each entry from ``foldRuns`` (-1: its own row); `aggregate`
 * (branch view) the parts drawn as one box. */
export function buildDisplay(
  cols: Columns,
  tree: Tree,
  vis: Visible,
  view: ViewMode,
  expanded: ReadonlySet<number>,
  fold: Int32Array | null = null,
  aggregate: AggregatePlan | null = null,
): Display {
  const n = cols.n;
  const sc = shownChildren(tree, vis);
  const nChildren = (i: number): number => sc.start[i + 1] - sc.start[i];

  // Segments: maximal chains of shown entries. Walk parents-first.
  const segOf = new Int32Array(n).fill(-1);
  const segments = new Map<number, SegmentInfo>();
  const { order } = tree;
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (!vis.shown[i]) continue;
    const p = vis.vparent[i];
    // A run goes on through single children; a compaction starts a new one, so even a
    // linear session reads as its stretches between compactions.
    const head = p >= 0 && nChildren(p) === 1 && cols.kind[i] !== Kind.Compaction ? segOf[p] : i;
    segOf[i] = head;
    let s = segments.get(head);
    if (!s) {
      s = newSegment(head);
      segments.set(head, s);
    }
    addEntry(s, cols, tree, i);
  }

  const collapsed = (head: number): boolean => {
    if (view !== "branches") return false;
    const s = segments.get(head);
    return !!s && s.size > 1 && !expanded.has(head);
  };

  // Folded runs of the tree view: one node each, with the run's figures.
  const folds = new Map<number, SegmentInfo>();
  if (fold && view !== "branches") {
    for (let k = 0; k < n; k++) {
      const i = order[k];
      const h = fold[i];
      if (h < 0 || !vis.shown[i]) continue;
      let s = folds.get(h);
      if (!s) {
        s = newSegment(h);
        folds.set(h, s);
      }
      addEntry(s, cols, tree, i);
    }
  }

  // Parts drawn as one box: the head of the box holding each entry (branch view).
  const aggregates = aggregate && view === "branches" ? aggregate.info : new Map<number, AggregateInfo>();
  const aggOf = aggregate && aggregate.info.size && view === "branches" ? aggregate.of : new Int32Array(0);

  // Display nodes in parents-first order.
  const nodeOf = new Int32Array(n).fill(-1);
  const entry: number[] = [];
  const isSeg: number[] = [];
  const dparentArr: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (!vis.shown[i]) continue;
    const head = segOf[i];
    const fh = folds.size ? fold![i] : aggOf.length ? aggOf[i] : -1;
    if (fh >= 0 ? fh !== i : collapsed(head) && head !== i) {
      nodeOf[i] = nodeOf[fh >= 0 ? fh : head];
      continue;
    }
    const d = entry.length;
    nodeOf[i] = d;
    entry.push(i);
    isSeg.push(collapsed(head) || fh >= 0 ? 1 : 0);
    const p = vis.vparent[i];
    dparentArr.push(p >= 0 ? nodeOf[p] : -1);
  }
  const m = entry.length;
  const dparent = Int32Array.from(dparentArr);
  const { childStart, childList, roots } = childColumns(dparent);

  const expandedHeads: number[] = [];
  if (view === "branches") {
    for (const h of expanded) {
      const s = segments.get(h);
      if (s && s.size > 1 && nodeOf[h] >= 0 && entry[nodeOf[h]] === h) expandedHeads.push(h);
    }
  }
  return {
    m,
    entry: Int32Array.from(entry),
    isSeg: Uint8Array.from(isSeg),
    dparent,
    childStart,
    childList,
    roots,
    nodeOf,
    segOf,
    segments,
    expandedHeads,
    folds,
    aggregates,
  };
}

/** Whether a display node is in error (entry or, for a segment, any member). */
export function nodeFlags(cols: Columns, disp: Display, d: number): number {
  const i = disp.entry[d];
  if (disp.isSeg[d]) return disp.segments.get(i)?.flags ?? 0;
  return cols.flags[i];
}

export function displayChildren(disp: Display, d: number): Int32Array {
  return disp.childList.subarray(disp.childStart[d], disp.childStart[d + 1]);
}

export const hasError = (flags: number): boolean => (flags & Flag.Error) !== 0;

/** Each entry's place in ``tree.order`` (made once per tree). */
const ranks = new WeakMap<Tree, Int32Array>();
function rankOf(tree: Tree): Int32Array {
  let r = ranks.get(tree);
  if (!r) {
    r = new Int32Array(tree.order.length);
    for (let k = 0; k < tree.order.length; k++) r[tree.order[k]] = k;
    ranks.set(tree, r);
  }
  return r;
}

/**
 * The Tree display ``disp`` (built with folds ``before``) with the fold headed by ``h``
 * regrouped as ``after`` says, every other fold as it was: the same display
 * ``buildDisplay`` gives for ``after``, made from ``disp`` in a pass over the nodes and
 * the fold's entries rather than from every entry. Runs and their figures are shared.
 */
export function refold(disp: Display, cols: Columns, tree: Tree, vis: Visible, before: Int32Array, after: Int32Array, h: number): Display {
  const n = cols.n;
  const rank = rankOf(tree);
  const members: number[] = [];
  for (const i of tree.order) if (before[i] === h && vis.shown[i]) members.push(i);
  const fresh = members.filter((i) => after[i] < 0 || after[i] === i);
  // The nodes: the old ones less the fold's, and its new rows, in the order of the tree.
  const old = disp.nodeOf[h];
  const entry = new Int32Array(disp.m - 1 + fresh.length);
  const oldToNew = new Int32Array(disp.m).fill(-1);
  const newOf = new Map<number, number>();
  let a = 0;
  let b = 0;
  for (let d = 0; d < entry.length; d++) {
    if (a === old) a++;
    const takeOld = a < disp.m && (b >= fresh.length || rank[disp.entry[a]] < rank[fresh[b]]);
    if (takeOld) {
      oldToNew[a] = d;
      entry[d] = disp.entry[a++];
    } else {
      newOf.set(fresh[b], d);
      entry[d] = fresh[b++];
    }
  }
  const nodeOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const d = disp.nodeOf[i];
    nodeOf[i] = d >= 0 ? oldToNew[d] : -1;
  }
  const folds = new Map(disp.folds);
  folds.delete(h);
  for (const i of members) {
    const head = after[i];
    nodeOf[i] = head < 0 || head === i ? (newOf.get(i) as number) : nodeOf[head];
    if (head < 0) continue;
    let s = folds.get(head);
    if (!s) {
      s = newSegment(head);
      folds.set(head, s);
    }
    addEntry(s, cols, tree, i);
  }
  const m = entry.length;
  const isSeg = new Uint8Array(m);
  const dparent = new Int32Array(m);
  for (let d = 0; d < m; d++) {
    const i = entry[d];
    isSeg[d] = after[i] >= 0 ? 1 : 0;
    const p = vis.vparent[i];
    dparent[d] = p >= 0 ? nodeOf[p] : -1;
  }
  const { childStart, childList, roots } = childColumns(dparent);
  return { ...disp, m, entry, isSeg, dparent, childStart, childList, roots, nodeOf, folds };
}
