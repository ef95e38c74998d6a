/**
 * Level of detail for the Tree view, as deep as a row budget asks: the whole session in
 * at most ``budget`` rows, each with text, never a dot. Four levels, each taken only when
 * the one before does not fit:
 *
 * 1. every shown entry on its own row;
 * 2. runs of entries without a landmark folded into one row (``fold.ts``);
 * 3. the side branches under a fork of the main line folded into one row ("▸ 3 branches ·
 *    45 entries"), the largest first, and the roots besides the main one into one row;
 * 4. the main line (the active path) folded into stretches around the landmarks kept on
 *    rows of their own ("▸ 2,300 entries · 12 forks · 3 compactions · 1 error"):
 *    compactions first, then forks (each with its side branches' row) and branch
 *    summaries, then entries with an error, a problem or a label, spread along the line,
 *    as many as the budget allows.
 *
 * The main line's root and end, and the entries the caller keeps (the selection), keep
 * their rows at every level. Pure: no DOM; grid units only (rows). Linear in the number
 * of entries, plus a sort of the main line's landmarks.
 */

import { Flag, Kind } from "../model/constants";
import type { Columns } from "../model/data";
import { peakTokens } from "../model/display";
import type { Visible } from "../model/filter";
import type { Tree } from "../model/tree";
import { fmtCount } from "../ui/canvas";
import { foldRuns, landmarks } from "./fold";

/** What a folded row stands for. */
export type FoldKind = "run" | "sides" | "roots" | "stretch";

/** The figures of one folded row, by its head entry. */
export interface FoldSummary {
  kind: FoldKind;
  entries: number;
  /** branch ends (leaves) inside */
  branches: number;
  forks: number;
  compactions: number;
  errors: number;
  /** the largest turn total inside (``peakTokens``) */
  tokens: number;
  /** output tokens written inside, summed */
  output: number;
  onActive: boolean;
  /** the roots folded into a "roots" row */
  roots: number;
}

export interface TreeFolds {
  /** Head entry of the folded row holding each entry, -1 for a row of its own; null when
   * nothing folds. */
  fold: Int32Array | null;
  /** Rows drawn. */
  rows: number;
  /** 0 (every entry a row) to 3 (main-line stretches): the level taken. */
  level: number;
  summaries: Map<number, FoldSummary>;
}

/** Rows drawn with these folds: one per entry on its own row, one per folded row. */
function countRows(vis: Visible, fold: Int32Array): number {
  let rows = 0;
  for (let i = 0; i < fold.length; i++) if (vis.shown[i] && (fold[i] < 0 || fold[i] === i)) rows++;
  return rows;
}

/** Fold the session until it fits ``budget`` rows (see the module comment). */
export function foldToFit(cols: Columns, tree: Tree, vis: Visible, budget: number, keep: readonly number[] = []): TreeFolds {
  const n = tree.n;
  const empty = new Map<number, FoldSummary>();
  if (vis.count <= budget) return { fold: null, rows: vis.count, level: 0, summaries: empty };
  const kept = keep.filter((i) => i >= 0 && i < n && vis.shown[i]);
  const runs = foldRuns(cols, tree, vis, { keep: kept });
  const kinds = new Map<number, FoldKind>();
  for (let i = 0; i < n; i++) if (runs[i] === i) kinds.set(i, "run");
  let rows = countRows(vis, runs);
  if (rows <= budget) return finish(cols, tree, vis, runs, rows, 1, kinds);

  // Shown children per entry; the main line (shown entries on the active path).
  const { order } = tree;
  const kids = new Int32Array(n);
  for (let i = 0; i < n; i++) if (vis.shown[i] && vis.vparent[i] >= 0) kids[vis.vparent[i]]++;
  const onMain = (i: number): boolean => tree.onActive[i] === 1 && vis.shown[i] === 1;
  // Rows under each entry, itself included, with the runs folded.
  const below = new Int32Array(n);
  for (let k = n - 1; k >= 0; k--) {
    const i = order[k];
    if (!vis.shown[i]) continue;
    if (runs[i] < 0 || runs[i] === i) below[i]++;
    const p = vis.vparent[i];
    if (p >= 0) below[p] += below[i];
  }
  // Entries the caller keeps pin the main-line entry they hang from (its row stays), and
  // the side branch or root they are in stays out of the folded groups.
  const pinned = new Uint8Array(n);
  const apart = new Uint8Array(n);
  for (const i of kept) {
    let v = i;
    let below1 = i;
    while (v >= 0 && !onMain(v)) {
      below1 = v;
      v = vis.vparent[v];
    }
    if (v >= 0 && v !== i) pinned[v] = 1;
    if (!onMain(i)) apart[below1] = 1;
  }

  // Level 3: candidate groups: the side children of each main-line fork; the other roots.
  const groups: { at: number; heads: number[]; rows: number }[] = [];
  const sidesOf = new Map<number, number[]>();
  const otherRoots: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (!vis.shown[i] || onMain(i)) continue;
    const p = vis.vparent[i];
    if (p < 0) otherRoots.push(i);
    else if (onMain(p)) {
      const list = sidesOf.get(p);
      if (list) list.push(i);
      else sidesOf.set(p, [i]);
    }
  }
  const grouped = (heads: number[]): number[] => heads.filter((h) => !apart[h]);
  for (const [at, heads] of sidesOf) {
    const g = grouped(heads);
    if (g.length) groups.push({ at, heads: g, rows: g.reduce((s, h) => s + below[h], 0) });
  }
  const roots = grouped(otherRoots);
  if (roots.length) groups.push({ at: -1, heads: roots, rows: roots.reduce((s, h) => s + below[h], 0) });
  groups.sort((a, b) => b.rows - a.rows || a.at - b.at);
  const group = new Int32Array(n).fill(-1);
  const rootCount = new Map<number, number>();
  for (const g of groups) {
    if (rows <= budget) break;
    if (g.rows <= 1) continue;
    for (const h of g.heads) group[h] = g.heads[0];
    rootCount.set(g.heads[0], g.heads.length);
    kinds.set(g.heads[0], g.at < 0 ? "roots" : "sides");
    rows -= g.rows - 1;
  }
  const sides = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (!vis.shown[i]) continue;
    const p = vis.vparent[i];
    sides[i] = group[i] >= 0 ? group[i] : p >= 0 && sides[p] >= 0 ? sides[p] : -1;
  }
  const level3 = new Int32Array(n);
  for (let i = 0; i < n; i++) level3[i] = sides[i] >= 0 ? sides[i] : runs[i];
  for (const [h, kind] of kinds) if (kind === "run" && level3[h] !== h) kinds.delete(h);
  if (rows <= budget) return finish(cols, tree, vis, level3, rows, 2, kinds, rootCount);

  // Level 4: the main line, root first; rows hanging off each of its entries (sides).
  const main: number[] = [];
  for (let k = 0; k < n; k++) if (onMain(order[k])) main.push(order[k]);
  const L = main.length;
  if (L < 3) return finish(cols, tree, vis, level3, rows, 2, kinds, rootCount);
  const posOf = new Int32Array(n).fill(-1);
  main.forEach((i, p) => (posOf[i] = p));
  // Rows hanging off each main-line entry (its sides) and the other roots' rows.
  const hanging = (heads: number[]): number => {
    let r = 0;
    let folded = false;
    for (const h of heads) {
      if (group[h] >= 0) folded = true;
      else r += below[h];
    }
    return r + (folded ? 1 : 0);
  };
  const sideRows = new Int32Array(L);
  for (const [at, heads] of sidesOf) {
    const p = posOf[at];
    if (p >= 0) sideRows[p] = hanging(heads);
  }
  const rootRows = hanging(otherRoots);
  const mark = landmarks(cols, tree, vis, kept);
  const rank = (i: number): number => {
    if (cols.kind[i] === Kind.Compaction) return 4;
    if (kids[i] > 1 || cols.kind[i] === Kind.BranchSummary) return 3;
    if (cols.flags[i] & Flag.Error || cols.problemAt.has(i) || cols.labels.has(i)) return 2;
    return mark[i] ? 1 : 0;
  };
  const must = new Set<number>([0, L - 1]);
  for (let p = 0; p < L; p++) if (pinned[main[p]] || kept.includes(main[p])) must.add(p);
  const keptPos = [...must].sort((a, b) => a - b);
  let total = rootRows;
  for (const p of keptPos) total += 1 + sideRows[p];
  for (let j = 1; j < keptPos.length; j++) if (keptPos[j] - keptPos[j - 1] > 1) total++;
  // Candidates: best rank first; within a rank, spread along the line (van der Corput
  // order of their place), so the kept ones are not all at one end.
  const byRank: number[][] = [[], [], [], [], []];
  for (let p = 1; p < L - 1; p++) if (!must.has(p) && rank(main[p])) byRank[rank(main[p])].push(p);
  const candidates: number[] = [];
  for (let r = 4; r >= 1; r--) {
    const list = byRank[r];
    const keyed = list.map((p, j) => [spread(j, list.length), p] as const);
    keyed.sort((a, b) => a[0] - b[0]);
    for (const [, p] of keyed) candidates.push(p);
  }
  for (const p of candidates) {
    let lo = 0;
    let hi = keptPos.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keptPos[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    const a = keptPos[lo - 1];
    const b = keptPos[lo];
    const delta = 1 + sideRows[p] + (p - a > 1 ? 1 : 0) + (b - p > 1 ? 1 : 0) - (b - a > 1 ? 1 : 0);
    if (total + delta > budget) continue;
    total += delta;
    keptPos.splice(lo, 0, p);
  }
  // Stretches: the main-line entries between kept ones, with everything hanging off them.
  const stretch = new Int32Array(n).fill(-1);
  const isKept = new Uint8Array(L);
  for (const p of keptPos) isKept[p] = 1;
  for (let p = 0; p < L; p++) {
    if (isKept[p]) continue;
    stretch[main[p]] = p > 0 && !isKept[p - 1] ? stretch[main[p - 1]] : main[p];
  }
  const fold = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const i = order[k];
    if (!vis.shown[i]) {
      fold[i] = -1;
      continue;
    }
    const p = vis.vparent[i];
    if (!onMain(i) && p >= 0 && stretch[p] >= 0) stretch[i] = stretch[p];
    // a main-line entry outside every stretch is kept: a row of its own, even when it sat
    // in a run of level 2 (an entry with an error is no landmark there)
    fold[i] = stretch[i] >= 0 ? stretch[i] : onMain(i) ? -1 : level3[i];
  }
  for (let p = 0; p < L; p++) if (!isKept[p] && stretch[main[p]] === main[p]) kinds.set(main[p], "stretch");
  for (const [h] of kinds) if (fold[h] !== h) kinds.delete(h);
  // A stretch of one entry with nothing hanging off it is that entry's own row.
  const size = new Int32Array(n);
  for (let i = 0; i < n; i++) if (fold[i] >= 0) size[fold[i]]++;
  for (let i = 0; i < n; i++) if (fold[i] >= 0 && size[fold[i]] === 1) fold[i] = -1;
  return finish(cols, tree, vis, fold, countRows(vis, fold), 3, kinds, rootCount);
}

/** The j-th of ``count`` in van der Corput order: 0, 1/2, 1/4, 3/4, ... of the list. */
function spread(j: number, count: number): number {
  if (count <= 1) return 0;
  let v = 0;
  let f = 0.5;
  for (let x = j; x > 0; x >>= 1, f /= 2) if (x & 1) v += f;
  return v;
}

/** The figures of every folded row. */
function finish(
  cols: Columns,
  tree: Tree,
  vis: Visible,
  fold: Int32Array,
  rows: number,
  level: number,
  kinds: Map<number, FoldKind>,
  rootCount: Map<number, number> = new Map(),
): TreeFolds {
  const n = tree.n;
  const kids = new Int32Array(n);
  for (let i = 0; i < n; i++) if (vis.shown[i] && vis.vparent[i] >= 0) kids[vis.vparent[i]]++;
  const summaries = new Map<number, FoldSummary>();
  for (let i = 0; i < n; i++) {
    const h = fold[i];
    if (h < 0 || !vis.shown[i]) continue;
    let s = summaries.get(h);
    if (!s) {
      s = { kind: kinds.get(h) ?? "run", entries: 0, branches: 0, forks: 0, compactions: 0, errors: 0, tokens: 0, output: 0, onActive: false, roots: rootCount.get(h) ?? 0 };
      summaries.set(h, s);
    }
    s.entries++;
    s.tokens = peakTokens(s.tokens, cols.tokens[i]);
    s.output += cols.output[i];
    if (!kids[i]) s.branches++;
    if (kids[i] > 1) s.forks++;
    if (cols.kind[i] === Kind.Compaction) s.compactions++;
    if (cols.flags[i] & Flag.Error || cols.problemAt.has(i)) s.errors++;
    if (tree.onActive[i]) s.onActive = true;
  }
  return { fold: summaries.size ? fold : null, rows, level, summaries };
}

/**
 * ``folds`` with entry ``entry`` on a row of its own, made from ``folds`` rather than
 * folded again: only the fold that holds it changes. It becomes what lies above the entry
 * (the fold as it was, less the entry and what hangs below it), the entry's row, and what
 * hangs below the entry within the fold (one row). So a selection inside a fold costs two
 * rows more and a pass over the entries, not a new level of detail. Null when the entry
 * is not inside a fold (nothing to open).
 */
export function openFold(cols: Columns, tree: Tree, vis: Visible, folds: TreeFolds, entry: number): TreeFolds | null {
  const fold = folds.fold;
  if (!fold || entry < 0 || entry >= fold.length || fold[entry] < 0 || !vis.shown[entry]) return null;
  const h = fold[entry];
  const next = fold.slice();
  next[entry] = -1;
  // Each member is below the entry or not; parents come first in ``order``, so a
  // member's parent is settled before it.
  const under = new Uint8Array(fold.length);
  under[entry] = 1;
  const parts = { below: [] as number[], rest: [] as number[] };
  let chain = true;
  let active = false;
  let roots = 0;
  const kidsIn = new Uint8Array(fold.length);
  for (const i of tree.order) {
    if (i === entry || fold[i] !== h || !vis.shown[i]) continue;
    const p = vis.vparent[i];
    const low = p >= 0 && under[p] === 1;
    under[i] = low ? 1 : 0;
    if (low) {
      parts.below.push(i);
      if (kidsIn[p]++ > 0) chain = false;
      if (tree.onActive[i]) active = true;
    } else {
      parts.rest.push(i);
      if (p < 0) roots++;
    }
  }
  const kinds = new Map<number, FoldKind>();
  const rootCount = new Map<number, number>();
  for (const [head, sum] of folds.summaries) {
    if (head === h) continue;
    kinds.set(head, sum.kind);
    if (sum.roots) rootCount.set(head, sum.roots);
  }
  const kind = folds.summaries.get(h)?.kind ?? "run";
  // A part of one entry is a row of its own; a larger one, a fold headed by its first.
  const regroup = (list: number[], as: FoldKind): void => {
    if (!list.length) return;
    const head = list.length > 1 ? list[0] : -1;
    for (const i of list) next[i] = head;
    if (head < 0) return;
    kinds.set(head, as);
    if (as === "roots") rootCount.set(head, roots);
  };
  regroup(parts.rest, kind);
  regroup(parts.below, chain ? "run" : kind === "stretch" && active ? "stretch" : "sides");
  return finish(cols, tree, vis, next, countRows(vis, next), folds.level, kinds, rootCount);
}

const plural = (n: number, one: string, many = `${one}s`): string => `${fmtCount(n)} ${n === 1 ? one : many}`;

/** What a folded row of level 3 or 4 says; null for a plain run (its own text). */
export function summaryText(s: FoldSummary): string | null {
  if (s.kind === "run") return null;
  const parts: string[] = [];
  if (s.kind === "sides") parts.push(`▸ ${plural(s.branches, "branch", "branches")}`, plural(s.entries, "entry", "entries"));
  else if (s.kind === "roots") parts.push(`▸ ${plural(s.roots, "more root")}`, plural(s.entries, "entry", "entries"));
  else parts.push(`▸ ${plural(s.entries, "entry", "entries")}`);
  if (s.kind !== "sides" && s.forks) parts.push(plural(s.forks, "fork"));
  if (s.compactions) parts.push(plural(s.compactions, "compaction"));
  if (s.errors) parts.push(plural(s.errors, "error"));
  if (s.output) parts.push(`${fmtCount(s.output)} output tokens`);
  return parts.join(" · ");
}
