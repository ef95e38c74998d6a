/** Build raw trees for tests, the way Python sends them. */

import { decodeTree, type Columns, type RawTree } from "../src/model/data";

export interface Row {
  id: string;
  parent: string | null;
  kind: number;
  flags?: number;
  tokens?: number;
  output?: number;
  time?: number;
}

export function rawTree(
  rows: Row[],
  extra: Partial<RawTree> & { labelsById?: Record<string, string>; compactionsById?: [string, string | null, number][] } = {},
): RawTree {
  const n = rows.length;
  const index = new Map(rows.map((r, i) => [r.id, i]));
  const ids = new Uint8Array(n * 8);
  rows.forEach((r, i) => {
    for (let j = 0; j < 8; j++) ids[i * 8 + j] = r.id.charCodeAt(j) || 0;
  });
  const parent = new DataView(new ArrayBuffer(n * 4));
  const tokens = new DataView(new ArrayBuffer(n * 4));
  const output = new DataView(new ArrayBuffer(n * 4));
  const time = new DataView(new ArrayBuffer(n * 4));
  const kind = new Uint8Array(n);
  const flags = new Uint8Array(n);
  rows.forEach((r, i) => {
    parent.setInt32(i * 4, r.parent == null ? -1 : (index.get(r.parent) ?? -1), true);
    tokens.setUint32(i * 4, r.tokens ?? 0, true);
    output.setUint32(i * 4, r.output ?? 0, true);
    time.setFloat32(i * 4, r.time ?? i, true);
    kind[i] = r.kind;
    flags[i] = r.flags ?? 0;
  });
  const { labelsById, compactionsById, ...rest } = extra;
  return {
    n,
    ids: new DataView(ids.buffer),
    parent,
    kind: new DataView(kind.buffer),
    flags: new DataView(flags.buffer),
    tokens,
    output,
    time,
    active_leaf: n - 1,
    labels: Object.entries(labelsById ?? {}).map(([id, t]) => [index.get(id) ?? -1, t]),
    compactions: (compactionsById ?? []).map(([c, k, t]) => [index.get(c) ?? -1, k ? (index.get(k) ?? -1) : -1, t]),
    name: "test",
    cwd: "/tmp",
    ...rest,
  };
}

export function columns(rows: Row[], extra: Parameters<typeof rawTree>[1] = {}): Columns {
  return decodeTree(rawTree(rows, extra));
}

/** A chain of ids "e0000000".."eNNNNNNN" (8 chars). */
export const id8 = (k: number): string => `e${String(k).padStart(7, "0")}`;
