/** The entry tree: ordered children, a parents-first order, and the active path. */

import type { Columns } from "./data";

export interface Tree {
  n: number;
  /** Parent index after cycles are broken (-1 for roots). */
  parent: Int32Array;
  /** Children of i are childList[childStart[i] .. childStart[i + 1]), oldest first. */
  childStart: Int32Array;
  childList: Int32Array;
  roots: Int32Array;
  /** Every entry once, each parent before its children (depth-first, children in order). */
  order: Int32Array;
  /** 1 for entries on the path from a root to the active leaf. */
  onActive: Uint8Array;
  activeLeaf: number;
}

function buildChildren(
  n: number,
  parent: Int32Array,
  time: Float32Array,
): { childStart: Int32Array; childList: Int32Array; roots: Int32Array } {
  const childStart = new Int32Array(n + 1);
  let nRoots = 0;
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p >= 0) childStart[p + 1]++;
    else nRoots++;
  }
  for (let i = 0; i < n; i++) childStart[i + 1] += childStart[i];
  const fill = childStart.slice(0, n);
  const childList = new Int32Array(childStart[n]);
  const roots = new Int32Array(nRoots);
  let r = 0;
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p >= 0) childList[fill[p]++] = i;
    else roots[r++] = i;
  }
  const cmp = (a: number, b: number): number => {
    const ta = time[a] || 0;
    const tb = time[b] || 0;
    return ta - tb || a - b;
  };
  for (let i = 0; i < n; i++) {
    const s = childStart[i];
    const e = childStart[i + 1];
    if (e - s > 1) {
      const part = Array.from(childList.subarray(s, e)).sort(cmp);
      childList.set(part, s);
    }
  }
  const sortedRoots = Array.from(roots).sort(cmp);
  return { childStart, childList, roots: Int32Array.from(sortedRoots) };
}

/** Depth-first order from the given starts; returns how many were newly visited. */
function walk(
  starts: ArrayLike<number>,
  childStart: Int32Array,
  childList: Int32Array,
  seen: Uint8Array,
  out: Int32Array,
  pos: number,
): number {
  const stack: number[] = [];
  for (let k = starts.length - 1; k >= 0; k--) stack.push(starts[k]);
  while (stack.length) {
    const v = stack.pop() as number;
    if (seen[v]) continue;
    seen[v] = 1;
    out[pos++] = v;
    for (let j = childStart[v + 1] - 1; j >= childStart[v]; j--) {
      const c = childList[j];
      if (!seen[c]) stack.push(c);
    }
  }
  return pos;
}

/** Build the tree from the columns. Entries caught in a parent cycle become roots. */
export function buildTree(cols: Columns): Tree {
  const n = cols.n;
  const parent = cols.parent.slice();
  let ch = buildChildren(n, parent, cols.time);
  const seen = new Uint8Array(n);
  const order = new Int32Array(n);
  let pos = walk(ch.roots, ch.childStart, ch.childList, seen, order, 0);
  if (pos < n) {
    for (let i = 0; i < n && pos < n; i++) {
      if (seen[i]) continue;
      parent[i] = -1;
      pos = walk([i], ch.childStart, ch.childList, seen, order, pos);
    }
    ch = buildChildren(n, parent, cols.time);
    seen.fill(0);
    walk(ch.roots, ch.childStart, ch.childList, seen, order, 0);
  }
  const onActive = new Uint8Array(n);
  const activeLeaf = n ? Math.min(Math.max(cols.activeLeaf, 0), n - 1) : -1;
  for (let v = activeLeaf, steps = 0; v >= 0 && steps <= n; v = parent[v], steps++) onActive[v] = 1;
  return { n, parent, ...ch, order, onActive, activeLeaf };
}

/** Entry indices from the root down to i. */
export function pathTo(tree: Tree, i: number): number[] {
  const out: number[] = [];
  for (let v = i, steps = 0; v >= 0 && steps <= tree.n; v = tree.parent[v], steps++) out.push(v);
  return out.reverse();
}

/** Children of i, in order. */
export function childrenOf(tree: Tree, i: number): Int32Array {
  return tree.childList.subarray(tree.childStart[i], tree.childStart[i + 1]);
}

/** Leaves (entries without children). */
export function leaves(tree: Tree): number[] {
  const out: number[] = [];
  for (let i = 0; i < tree.n; i++) if (tree.childStart[i + 1] === tree.childStart[i]) out.push(i);
  return out;
}
