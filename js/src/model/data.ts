/** Decoding the compact columns sent by Python (binary buffers) into typed arrays. */

export type Binary = DataView | ArrayBuffer | ArrayBufferView;

/** The `_tree` trait (or an "append" message) as it arrives from the kernel. */
export interface RawTree {
  n: number;
  ids?: Binary | null;
  id_list?: string[] | null;
  parent: Binary;
  kind: Binary;
  flags: Binary;
  tokens: Binary;
  /** output tokens per entry (absent in states saved before it was sent: zeros) */
  output?: Binary | null;
  time: Binary;
  active_leaf: number;
  labels?: [number, string][] | null;
  compactions?: [number, number, number][] | null;
  name?: string | null;
  cwd?: string | null;
  /** ``[line, kind, message, row]`` (row -1 when no entry holds it), maybe capped */
  problems?: [number, string, string, number][] | null;
  problem_count?: number | null;
}

/** A problem the loader found: its line, kind and message, and the entry (row) if any. */
export interface Problem {
  line: number;
  kind: string;
  message: string;
  row: number;
}

export interface Compaction {
  index: number;
  firstKept: number;
  tokensBefore: number;
}

export interface Columns {
  n: number;
  ids: string[] | Uint8Array;
  parent: Int32Array;
  kind: Uint8Array;
  flags: Uint8Array;
  tokens: Uint32Array;
  /** what each turn wrote (output tokens): summed on folded rows and boxes */
  output: Uint32Array;
  time: Float32Array;
  activeLeaf: number;
  labels: Map<number, string>;
  compactions: Compaction[];
  name: string;
  cwd: string;
  problems: Problem[];
  /** every problem, also those not sent */
  problemCount: number;
  /** the problem kind of each entry that has one */
  problemAt: Map<number, string>;
}

/** Decode the problems list (untrusted shapes are dropped); rows outside 0..n become -1. */
export function decodeProblems(raw: RawTree["problems"], count: unknown, n: number): Pick<Columns, "problems" | "problemCount" | "problemAt"> {
  const problems: Problem[] = [];
  const problemAt = new Map<number, string>();
  for (const p of Array.isArray(raw) ? raw : []) {
    if (!Array.isArray(p)) continue;
    const row = Number(p[3]);
    const item = { line: Number(p[0]) || 0, kind: String(p[1] ?? ""), message: String(p[2] ?? ""), row: row >= 0 && row < n ? row : -1 };
    problems.push(item);
    if (item.row >= 0 && !problemAt.has(item.row)) problemAt.set(item.row, item.kind);
  }
  const c = Number(count);
  return { problems, problemCount: Number.isFinite(c) && c >= problems.length ? c : problems.length, problemAt };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Copy of the bytes behind any binary value (never a view on the caller's buffer). */
export function bytesOf(value: Binary | null | undefined): Uint8Array {
  if (value == null) return new Uint8Array(0);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  const view = value as ArrayBufferView;
  return new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

function int32(value: Binary, n: number): Int32Array {
  const b = bytesOf(value);
  if (b.byteLength < n * 4) throw new Error(`column too short: ${b.byteLength} < ${n * 4}`);
  if (LITTLE_ENDIAN) return new Int32Array(b.buffer, 0, n);
  const dv = new DataView(b.buffer);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getInt32(i * 4, true);
  return out;
}

function uint32(value: Binary, n: number): Uint32Array {
  return new Uint32Array(int32(value, n).buffer, 0, n);
}

function float32(value: Binary, n: number): Float32Array {
  const b = bytesOf(value);
  if (b.byteLength < n * 4) throw new Error(`column too short: ${b.byteLength} < ${n * 4}`);
  if (LITTLE_ENDIAN) return new Float32Array(b.buffer, 0, n);
  const dv = new DataView(b.buffer);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

function uint8(value: Binary, n: number): Uint8Array {
  const b = bytesOf(value);
  if (b.byteLength < n) throw new Error(`column too short: ${b.byteLength} < ${n}`);
  return b.subarray(0, n);
}

function decodeIds(raw: RawTree, n: number): string[] | Uint8Array {
  if (raw.id_list) return raw.id_list.map(String);
  const b = bytesOf(raw.ids);
  if (b.byteLength < n * 8) throw new Error("ids column too short");
  return b.subarray(0, n * 8);
}

/** Decode a raw tree into columns. */
export function decodeTree(raw: RawTree): Columns {
  const n = Math.max(0, raw.n | 0);
  const parent = int32(raw.parent, n);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p < -1 || p >= n || p === i) parent[i] = -1;
  }
  const labels = new Map<number, string>();
  for (const [i, text] of raw.labels ?? []) {
    if (i >= 0 && i < n && text != null) labels.set(i, String(text));
  }
  const compactions: Compaction[] = [];
  for (const [i, k, t] of raw.compactions ?? []) {
    if (i >= 0 && i < n) compactions.push({ index: i, firstKept: k >= 0 && k < n ? k : -1, tokensBefore: t });
  }
  const activeLeaf = raw.active_leaf >= 0 && raw.active_leaf < n ? raw.active_leaf : n - 1;
  return {
    n,
    ids: decodeIds(raw, n),
    parent,
    kind: uint8(raw.kind, n),
    flags: uint8(raw.flags, n),
    tokens: uint32(raw.tokens, n),
    output: raw.output ? uint32(raw.output, n) : new Uint32Array(n),
    time: float32(raw.time, n),
    activeLeaf,
    labels,
    compactions,
    name: raw.name ? String(raw.name) : "",
    cwd: raw.cwd ? String(raw.cwd) : "",
    ...decodeProblems(raw.problems, raw.problem_count, n),
  };
}

function concat<T extends Int32Array | Uint8Array | Uint32Array | Float32Array>(a: T, b: T): T {
  const Ctor = a.constructor as new (n: number) => T;
  const out = new Ctor(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Append rows sent by Python (`{type: "append", ...columns of the new rows}`).
 * Parent indices of the new rows refer to the whole table. Labels and compactions
 * in the message replace the old ones (Python sends the full sparse lists).
 */
export function appendRows(cols: Columns, raw: RawTree): Columns {
  const add = decodeTree({ ...raw, active_leaf: -1, labels: [], compactions: [] });
  const total = cols.n + add.n;
  // decodeTree clamped parents to the new rows only: re-read them against the whole table.
  const parentNew = int32(raw.parent, add.n);
  for (let i = 0; i < add.n; i++) {
    const p = parentNew[i];
    parentNew[i] = p < -1 || p >= total || p === cols.n + i ? -1 : p;
  }
  let ids: string[] | Uint8Array;
  if (Array.isArray(cols.ids) || Array.isArray(add.ids)) {
    const a = Array.isArray(cols.ids) ? cols.ids : idList(cols);
    const b = Array.isArray(add.ids) ? add.ids : idList(add);
    ids = [...a, ...b];
  } else {
    ids = concat(cols.ids, add.ids);
  }
  const next: Columns = {
    n: total,
    ids,
    parent: concat(cols.parent, parentNew),
    kind: concat(cols.kind, add.kind),
    flags: concat(cols.flags, add.flags),
    tokens: concat(cols.tokens, add.tokens),
    output: concat(cols.output, add.output),
    time: concat(cols.time, add.time),
    activeLeaf: raw.active_leaf >= 0 && raw.active_leaf < total ? raw.active_leaf : total - 1,
    labels: cols.labels,
    compactions: cols.compactions,
    name: raw.name != null ? String(raw.name) : cols.name,
    cwd: raw.cwd != null ? String(raw.cwd) : cols.cwd,
    ...(raw.problems ? decodeProblems(raw.problems, raw.problem_count, total) : { problems: cols.problems, problemCount: cols.problemCount, problemAt: cols.problemAt }),
  };
  if (raw.labels) {
    next.labels = new Map();
    for (const [i, text] of raw.labels) if (i >= 0 && i < total) next.labels.set(i, String(text));
  }
  if (raw.compactions) {
    next.compactions = [];
    for (const [i, k, t] of raw.compactions) {
      if (i >= 0 && i < total) {
        next.compactions.push({ index: i, firstKept: k >= 0 && k < total ? k : -1, tokensBefore: t });
      }
    }
  }
  return next;
}

/** The id of entry i. */
export function idAt(cols: Columns, i: number): string {
  if (i < 0 || i >= cols.n) return "";
  if (Array.isArray(cols.ids)) return cols.ids[i];
  const b = cols.ids as Uint8Array;
  let s = "";
  for (let j = i * 8; j < i * 8 + 8; j++) {
    const c = b[j];
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  return s;
}

function idList(cols: Columns): string[] {
  const out = new Array<string>(cols.n);
  for (let i = 0; i < cols.n; i++) out[i] = idAt(cols, i);
  return out;
}

const indexCache = new WeakMap<Columns, Map<string, number>>();

/** Index of the entry with this id, or -1. The lookup table is built on first use. */
export function indexOfId(cols: Columns, id: string | null | undefined): number {
  if (!id) return -1;
  let map = indexCache.get(cols);
  if (!map) {
    map = new Map();
    for (let i = 0; i < cols.n; i++) map.set(idAt(cols, i), i);
    indexCache.set(cols, map);
  }
  return map.get(id) ?? -1;
}

/** Decode standard base64 into bytes (used by the standalone export). */
export function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
