/** Sessions of the shapes the Branches view must show whole: a long main line with forks
 * and compactions, many roots, a bushy tree. Rows as Python sends them. */

import { Kind } from "../../src/model/constants";
import { visibleTree } from "../../src/model/filter";
import { buildTree } from "../../src/model/tree";
import { columns, id8, type Row } from "../helpers";

const KINDS = [Kind.User, Kind.Assistant, Kind.ToolResult, Kind.Assistant];

/** Rows built by ``add``; the active leaf is the last row added unless set. */
export function session(build: (add: (parent: number | null, kind?: number) => number) => void, activeLeaf = -1) {
  const rows: Row[] = [];
  const compactions: [string, string | null, number][] = [];
  const add = (parent: number | null, kind?: number): number => {
    const k = rows.length;
    const kd = kind ?? KINDS[k % KINDS.length];
    rows.push({ id: id8(k), parent: parent === null ? null : id8(parent), kind: kd, tokens: 100, time: k });
    if (kd === Kind.Compaction && parent !== null) compactions.push([id8(k), id8(Math.max(0, parent - 3)), 5000]);
    return k;
  };
  build(add);
  const c = columns(rows, { compactionsById: compactions, active_leaf: activeLeaf >= 0 ? activeLeaf : rows.length - 1 });
  const t = buildTree(c);
  return { c, t, v: visibleTree(c, t, "all"), rows };
}

/** ``n`` entries on the main line, a side branch (``side`` entries, forking once at its
 * middle) every ``n / forks`` entries, a compaction every ``compactEvery``. */
export function mainLine(n: number, forks: number, side = 6, compactEvery = 0) {
  return session((add) => {
    let last = add(null, Kind.User);
    const every = Math.max(1, Math.floor(n / (forks + 1)));
    const mains: number[] = [];
    for (let j = 1; j < n; j++) {
      last = add(last, compactEvery && j % compactEvery === 0 ? Kind.Compaction : undefined);
      mains.push(last);
    }
    let made = 0;
    for (let j = every; j < mains.length && made < forks; j += every, made++) {
      let p = mains[j - 1];
      for (let s = 0; s < side; s++) {
        p = add(p);
        if (s === side >> 1) add(p);
      }
    }
  }, n - 1);
}

/** ``roots`` separate conversations of ``each`` entries, each forking once. */
export function manyRoots(roots: number, each = 8) {
  return session((add) => {
    for (let r = 0; r < roots; r++) {
      let p = add(null, Kind.User);
      let fork = p;
      for (let j = 1; j < each; j++) {
        p = add(p);
        if (j === 2) fork = p;
      }
      add(fork);
    }
  });
}
