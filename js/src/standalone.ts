/**
 * A local stand-in for the kernel: a mock anywidget model whose send() answers requests from
 * data inlined in the page. Used by the HTML export, the benchmark page and the tests.
 */

import type { AnyModel } from "@anywidget/types";
import { decodeTree, fromBase64, idAt, type Columns, type RawTree } from "./model/data";
import { eachEntry } from "./io/offline";
import { CallIndex, chunkOf, entryDetail, previewAt, type DetailExtras, type DetailSources, type PreviewColumns } from "./io/exported";
import { searchTexts } from "./model/filter";
import type { ContextDetail } from "./ui/panelcontent";
import { SessionView } from "./widget";

/** The tree columns as base64 text (the export's form of the `_tree` trait). */
export interface Tree64 {
  n: number;
  ids?: string | null;
  id_list?: string[] | null;
  parent: string;
  kind: string;
  flags: string;
  tokens: string;
  output?: string | null;
  time: string;
  active_leaf: number;
  labels?: [number, string][];
  compactions?: [number, number, number][];
  name?: string | null;
  cwd?: string | null;
  problems?: [number, string, string, number][] | null;
  problem_count?: number | null;
}

/** What a page holds: the tree up front; the rest inline (tests) or in parts (the export). */
export interface StandaloneData {
  tree: Tree64;
  /** every entry as read from the file, by row */
  entries?: (Record<string, unknown> | null)[] | null;
  /** each entry's line (the tree's text column) */
  lines?: (string | null)[] | null;
  previews?: PreviewColumns | null;
  extras?: DetailExtras | null;
  texts?: (string | null)[] | null;
  contexts?: Record<string, ContextDetail> | null;
  state?: Record<string, unknown>;
  /** names of the parts kept apart, compressed, read with the loader (when not given,
   * the loader's ``index`` part names them) */
  parts?: string[];
  /** the first row of each entries part ``entries-K`` (else from the ``index`` part) */
  chunks?: number[];
}

/** Reads a named part of the page (see ``pagePart``); null when there is none. */
export type PartLoader = (name: string) => Promise<unknown>;

/** Base64 characters decoded and inflated at a time (a multiple of 4). */
const SLICE = 1 << 15;
/** Time spent decoding a part before the page gets a turn to draw. */
const SLICE_MS = 8;

/** Yield to the page: its frames, input and timers run before the work goes on. */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === "function") return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The text of base64 gzip ``b64``, inflated with the browser's own DecompressionStream
 * (no library, no request: the page's CSP allows none), a slice at a time. A stream fed
 * the whole part at once inflates it in one task: megabytes of JSON, a frame blocked
 * for tens of milliseconds, on a busy machine for more than a hundred. */
export async function inflateText(b64: string, sliceMs = SLICE_MS): Promise<string> {
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const write = async (): Promise<void> => {
    let t0 = performance.now();
    for (let at = 0; at < b64.length; at += SLICE) {
      await writer.write(fromBase64(b64.slice(at, at + SLICE)) as Uint8Array<ArrayBuffer>);
      if (performance.now() - t0 > sliceMs) {
        await nextTask();
        t0 = performance.now();
      }
    }
    await writer.close();
  };
  const read = async (): Promise<string> => {
    const decoder = new TextDecoder();
    const texts: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      texts.push(decoder.decode(value, { stream: true }));
    }
    texts.push(decoder.decode());
    return texts.join("");
  };
  const [, text] = await Promise.all([write(), read()]);
  return text;
}

/** A part written a row a line (``"[\nA\n,B\n]"``, as ``_pack.ROWS_OPEN`` and the like
 * write it): each row is parsed when first asked for. Parsing a chunk of 5,000 entries
 * whole would block a frame and make garbage for the collector, when the Transcript
 * needs a screenful of them. Arrays have the same ``length`` and ``at``. */
export class Rows {
  readonly length: number;
  private lines: string[];
  private parsed = new Map<number, unknown>();

  constructor(text: string) {
    this.lines = text.split("\n").slice(1, -1);
    this.length = this.lines.length;
  }

  at(k: number): unknown {
    if (!(Number.isInteger(k) && k >= 0 && k < this.length)) return undefined;
    if (this.parsed.has(k)) return this.parsed.get(k);
    const line = this.lines[k];
    const value: unknown = JSON.parse(k ? line.slice(1) : line);
    this.parsed.set(k, value);
    return value;
  }
}

/** A list of rows: an array, or a part's ``Rows``. */
export type RowList = { readonly length: number; at(k: number): unknown };

/** A part's JSON text as its value: ``Rows`` for a part written a row a line. */
export function parsePart(text: string): unknown {
  return text.startsWith("[\n") ? new Rows(text) : JSON.parse(text);
}

/** A part of an exported page: base64 of gzipped JSON in an element (see ``inflateText``). */
export async function readPart(element: Element | null): Promise<unknown> {
  if (!element) return null;
  return parsePart(await inflateText((element.textContent ?? "").trim()));
}

/** Resolves once the whole document is read (the script runs before its parts are). */
export function documentRead(doc: Document = document): Promise<void> {
  if (doc.readyState !== "loading") return Promise.resolve();
  return new Promise((resolve) => doc.addEventListener("DOMContentLoaded", () => resolve(), { once: true }));
}

/** The exported page's loader: part ``name`` (``index``: the plain JSON list of the parts
 * and where each chunk of entries starts), once the document is read. */
export async function pagePart(name: string): Promise<unknown> {
  if (name === "index") {
    await documentRead();
    return JSON.parse(document.getElementById("pnb-index")?.textContent ?? "{}");
  }
  const id = `pnb-part-${name}`;
  // a part the browser has read past is whole already (the first parts, while the rest loads)
  const early = document.getElementById(id);
  if (!early?.nextSibling) await documentRead();
  return readPart(early?.nextSibling ? early : document.getElementById(id));
}

/** The data with every part it lacks loaded on first use (each once). */
export function withParts(data: StandaloneData, load: PartLoader | undefined): (name: string) => Promise<unknown> {
  const cache = new Map<string, Promise<unknown>>();
  const inline = data as unknown as Record<string, unknown>;
  return (name) => {
    const value = inline[name];
    if (value != null || !load || (data.parts && !data.parts.includes(name))) return Promise.resolve(value ?? null);
    let p = cache.get(name);
    if (!p) cache.set(name, (p = load(name)));
    return p;
  };
}

type Handler = (...args: unknown[]) => void;

/** Decode a base64 tree into the DataViews that ipywidgets would hand over. */
export function treeFrom64(t: Tree64): RawTree {
  const dv = (s: string | null | undefined): DataView => {
    const b = fromBase64(s ?? "");
    return new DataView(b.buffer, b.byteOffset, b.byteLength);
  };
  return {
    n: t.n,
    ids: t.ids != null ? dv(t.ids) : null,
    id_list: t.id_list ?? null,
    parent: dv(t.parent),
    kind: dv(t.kind),
    flags: dv(t.flags),
    tokens: dv(t.tokens),
    output: t.output != null ? dv(t.output) : null,
    time: dv(t.time),
    active_leaf: t.active_leaf,
    labels: t.labels ?? [],
    compactions: t.compactions ?? [],
    name: t.name ?? null,
    cwd: t.cwd ?? null,
    problems: t.problems ?? [],
    problem_count: t.problem_count ?? 0,
  };
}

/** Answers requests the way the Python side would, from the page's data: each part is
 * decoded when a request first needs it, the entries a chunk of rows at a time. */
export function pageAnswers(data: StandaloneData, load?: PartLoader): (msg: Record<string, unknown>) => Promise<unknown> {
  const loaded = new Map<string, Promise<unknown>>();
  const loadOnce: PartLoader | undefined =
    load &&
    ((name) => {
      let p = loaded.get(name);
      if (!p) loaded.set(name, (p = load(name)));
      return p;
    });
  const part = withParts(data, loadOnce);
  let chunks: Promise<number[]> | null = null;
  const chunkStarts = (): Promise<number[]> =>
    (chunks ??= (data.chunks ? Promise.resolve(data.chunks) : loadOnce ? loadOnce("index") : Promise.resolve(null)).then((v) => {
      const list = Array.isArray(v) ? v : (v as { chunks?: unknown } | null)?.chunks;
      return Array.isArray(list) ? list.map(Number) : [];
    }));
  let cols: Columns | null = null;
  const columns = (): Columns => (cols ??= decodeTree(treeFrom64(data.tree)));
  const entryAt = async (row: number): Promise<Record<string, unknown> | null> => {
    if (data.entries) return data.entries[row] ?? null;
    const starts = await chunkStarts();
    const k = chunkOf(starts, row);
    if (k < 0) return null;
    const rows = (await part(`entries-${k}`)) as RowList | null;
    return (rows?.at(row - starts[k]) as Record<string, unknown> | null | undefined) ?? null;
  };
  let sources: Promise<DetailSources> | null = null;
  const detailSources = (): Promise<DetailSources> =>
    (sources ??= (part("extras") as Promise<DetailExtras | null>).then(async (extras) => {
      // Three passes over every row (the extras part parsed, the tree's columns, the
      // calls indexed): a frame between each, so that together they block none.
      await nextTask();
      const c = columns();
      await nextTask();
      return {
        n: c.n,
        idAt: (row) => idAt(c, row),
        kindAt: (row) => c.kind[row],
        entryAt,
        labels: new Map((extras?.labels ?? []).map(([row, text]) => [row, String(text)])),
        cost: extras?.cost ?? [],
        calls: new CallIndex(extras?.calls, c.n),
      };
    }));
  return async (msg) => {
    const index = Number(msg.index);
    switch (msg.what) {
      case "entry":
        return entryDetail(await detailSources(), index);
      case "entries": {
        const src = await detailSources();
        const answers = eachEntry(msg, (row) => entryDetail(src, row).catch((e: Error) => ({ index: row, error: e.message })));
        return { entries: await Promise.all(answers) };
      }
      case "preview": {
        const [cols, lines] = await Promise.all([part("previews"), part("lines")]);
        return previewAt(cols as PreviewColumns | null, lines as string[] | null, index);
      }
      case "search":
        return { indices: searchTexts(((await part("texts")) as string[] | null) ?? [], String(msg.query ?? "")) };
      case "lines": {
        const lines = (await part("lines")) as (string | null)[] | null;
        const indices = Array.isArray(msg.indices) ? (msg.indices as number[]) : [];
        return { lines: indices.map((i) => lines?.[i] ?? "") };
      }
      case "context":
        return ((await part("contexts")) as StandaloneData["contexts"])?.[String(index)] ?? null;
      default:
        throw new Error(`unknown request: ${String(msg.what)}`);
    }
  };
}

/** A model with the anywidget surface (get/set/on/off/save_changes/send). */
export class MockModel {
  private state: Record<string, unknown>;
  private handlers = new Map<string, Set<Handler>>();
  widget_manager = {
    get_model: (): Promise<never> => Promise.reject(new Error("no widget manager in a standalone page")),
  };

  constructor(
    state: Record<string, unknown>,
    private answerFn: (msg: Record<string, unknown>) => unknown,
  ) {
    this.state = { ...state };
  }

  get(key: string): unknown {
    return this.state[key];
  }

  set(key: string, value: unknown): void {
    if (this.state[key] === value) return;
    this.state[key] = value;
    this.emit(`change:${key}`);
    this.emit("change");
  }

  on(name: string, fn: Handler): void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    set.add(fn);
  }

  off(name?: string | null, fn?: Handler | null): void {
    if (!name) {
      this.handlers.clear();
      return;
    }
    if (!fn) this.handlers.delete(name);
    else this.handlers.get(name)?.delete(fn);
  }

  save_changes(): void {
    /* nothing to save to */
  }

  send(content: unknown): void {
    const msg = content as Record<string, unknown>;
    if (!msg || msg.type !== "request") return;
    setTimeout(() => {
      Promise.resolve()
        .then(() => this.answerFn(msg))
        .then(
          (data) => ({ type: "response", rid: msg.rid, data }),
          (e: Error) => ({ type: "response", rid: msg.rid, error: e.message }),
        )
        .then((reply) => this.emit("msg:custom", reply, []));
    }, 0);
  }

  /** Deliver a message as if it came from the kernel. */
  emit(name: string, ...args: unknown[]): void {
    for (const fn of Array.from(this.handlers.get(name) ?? [])) fn(...args);
  }
}

/** Render the viewer into `el` from the page's data; parts not inlined are read with
 * ``load`` when first asked for. Returns the model and the view; `el.pnbAsk(msg)` asks
 * the page's stand-in for the kernel directly (for tests and checks). */
export function mountStandalone(el: HTMLElement, data: StandaloneData, load?: PartLoader): { model: MockModel; view: SessionView } {
  const state = {
    selected_id: null,
    filter: "default",
    search: "",
    view: "tree",
    ...(data.state ?? {}),
    _tree: treeFrom64(data.tree),
  };
  const ask = pageAnswers(data, load);
  const model = new MockModel(state, ask);
  const view = new SessionView(model as unknown as AnyModel, el, { standalone: true });
  (el as HTMLElement & { pnbAsk?: typeof ask }).pnbAsk = ask;
  return { model, view };
}
