/**
 * A local stand-in for the kernel: a mock anywidget model whose send() answers requests from
 * data inlined in the page. Used by the HTML export, the benchmark page and the tests.
 */

import type { AnyModel } from "@anywidget/types";
import { fromBase64, type RawTree } from "./data";
import { searchTexts } from "./filter";
import type { ContextDetail, EntryDetail } from "./panel";
import { SessionView, type Preview } from "./widget";

/** The tree columns as base64 text (the export's form of the `_tree` trait). */
export interface Tree64 {
  n: number;
  ids?: string | null;
  id_list?: string[] | null;
  parent: string;
  kind: string;
  flags: string;
  tokens: string;
  time: string;
  active_leaf: number;
  labels?: [number, string][];
  compactions?: [number, number, number][];
  name?: string | null;
  cwd?: string | null;
  problems?: [number, string, string, number][] | null;
  problem_count?: number | null;
}

export interface StandaloneData {
  tree: Tree64;
  details?: (EntryDetail | null)[] | null;
  previews?: (Preview | null)[] | null;
  texts?: (string | null)[] | null;
  contexts?: Record<string, ContextDetail> | null;
  state?: Record<string, unknown>;
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

/** Answer a request the way the Python side would, from inlined data. */
export function answer(data: StandaloneData, msg: Record<string, unknown>): unknown {
  const index = Number(msg.index);
  switch (msg.what) {
    case "entry":
      return data.details?.[index] ?? null;
    case "preview":
      return data.previews?.[index] ?? null;
    case "search":
      return { indices: searchTexts(data.texts ?? [], String(msg.query ?? "")) };
    case "lines":
      return {
        lines: (Array.isArray(msg.indices) ? (msg.indices as number[]) : []).map(
          (i) => data.previews?.[i]?.first_line ?? "",
        ),
      };
    case "context":
      return data.contexts?.[String(index)] ?? null;
    default:
      throw new Error(`unknown request: ${String(msg.what)}`);
  }
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
      let reply: Record<string, unknown>;
      try {
        reply = { type: "response", rid: msg.rid, data: this.answerFn(msg) };
      } catch (e) {
        reply = { type: "response", rid: msg.rid, error: (e as Error).message };
      }
      this.emit("msg:custom", reply, []);
    }, 0);
  }

  /** Deliver a message as if it came from the kernel. */
  emit(name: string, ...args: unknown[]): void {
    for (const fn of Array.from(this.handlers.get(name) ?? [])) fn(...args);
  }
}

/** Render the viewer into `el` from inlined data; returns the model and the view. */
export function mountStandalone(el: HTMLElement, data: StandaloneData): { model: MockModel; view: SessionView } {
  const state = {
    selected_id: null,
    filter: "default",
    search: "",
    view: "tree",
    ...(data.state ?? {}),
    _tree: treeFrom64(data.tree),
  };
  const model = new MockModel(state, (msg) => answer(data, msg));
  const view = new SessionView(model as unknown as AnyModel, el, { standalone: true });
  return { model, view };
}
