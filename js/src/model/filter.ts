/** The agent's tree-view filters and text search, applied to the columns. */

import { BOOKKEEPING, Flag, Kind, type FilterMode } from "./constants";
import type { Columns } from "./data";
import type { Tree } from "./tree";

/** Whether entry i passes the filter mode on its own (before "never hide" rules). */
export function passes(cols: Columns, i: number, mode: FilterMode): boolean {
  const kind = cols.kind[i];
  const flags = cols.flags[i];
  if (kind === Kind.Assistant && flags & Flag.ToolOnly && !(flags & Flag.Error)) return false;
  switch (mode) {
    case "all":
      return true;
    case "user-only":
      return kind === Kind.User;
    case "labeled-only":
      return cols.labels.has(i);
    case "no-tools":
      return !BOOKKEEPING.has(kind) && kind !== Kind.ToolResult;
    default:
      return !BOOKKEEPING.has(kind);
  }
}

export interface Visible {
  /** 1 if shown. */
  shown: Uint8Array;
  /** Nearest shown proper ancestor of each entry (-1 if none). */
  vparent: Int32Array;
  count: number;
}

/**
 * Entries shown under a filter. The active leaf and any `force`d entries are always shown;
 * a hidden entry's children attach to the nearest shown ancestor.
 */
export function visibleTree(
  cols: Columns,
  tree: Tree,
  mode: FilterMode,
  force: Iterable<number> = [],
): Visible {
  const n = cols.n;
  const shown = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (passes(cols, i, mode)) {
      shown[i] = 1;
      count++;
    }
  }
  const keep = [tree.activeLeaf, ...force];
  for (const i of keep) {
    if (i >= 0 && i < n && !shown[i]) {
      shown[i] = 1;
      count++;
    }
  }
  const vparent = new Int32Array(n).fill(-1);
  const { order, parent } = tree;
  for (let k = 0; k < n; k++) {
    const c = order[k];
    const p = parent[c];
    if (p >= 0) vparent[c] = shown[p] ? p : vparent[p];
  }
  return { shown, vparent, count };
}

/** Lower-cased words of a query (split on white space). */
export function queryWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
}

/** The agent's search rule: every word of the query occurs in the (lower-cased) text. */
export function matchesQuery(text: string, words: readonly string[]): boolean {
  if (!words.length) return false;
  const t = text.toLowerCase();
  for (const w of words) if (!t.includes(w)) return false;
  return true;
}

/** Indices of texts matching the query. */
export function searchTexts(texts: readonly (string | null | undefined)[], query: string): number[] {
  const words = queryWords(query);
  const out: number[] = [];
  if (!words.length) return out;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    if (t && matchesQuery(t, words)) out.push(i);
  }
  return out;
}
