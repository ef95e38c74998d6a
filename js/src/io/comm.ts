/** Talking to the kernel: the per-model column store (with live appends) and requests. */

import type { AnyModel } from "@anywidget/types";
import { appendRows, decodeTree, type Binary, type Columns, type RawTree } from "../model/data";
import { OfflineAnswerer } from "./offline";

export const APPEND_COLUMNS = ["ids", "parent", "kind", "flags", "tokens", "output", "time"] as const;

/** Columns of one model, shared by all its views; appends arrive once per model. */
export class Store {
  cols: Columns;
  version = 0;
  private listeners = new Set<(reset: boolean) => void>();

  constructor(model: AnyModel) {
    this.cols = decodeTree(model.get("_tree") as RawTree);
    model.on("change:_tree", () => {
      this.cols = decodeTree(model.get("_tree") as RawTree);
      this.version++;
      this.emit(true);
    });
    model.on("msg:custom", (msg: unknown, buffers: (DataView | ArrayBuffer)[] | undefined) => {
      const m = msg as { type?: string; columns?: string[] } & Partial<RawTree>;
      if (!m || m.type !== "append") return;
      const raw: Record<string, unknown> = { ...m };
      const names = m.columns ?? [...APPEND_COLUMNS];
      names.forEach((name, j) => {
        if (buffers && buffers[j] !== undefined) raw[name] = buffers[j] as Binary;
      });
      if (!raw.ids && !raw.id_list) raw.ids = new Uint8Array(0);
      this.cols = appendRows(this.cols, raw as unknown as RawTree);
      this.version++;
      this.emit(false);
    });
  }

  subscribe(fn: (reset: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(reset: boolean): void {
    for (const fn of this.listeners) fn(reset);
  }
}

const stores = new WeakMap<AnyModel, Store>();

/** The store of a model (created on first use). */
export function storeFor(model: AnyModel): Store {
  let s = stores.get(model);
  if (!s) {
    s = new Store(model);
    stores.set(model, s);
  }
  return s;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Request/response over custom messages: `{type: "request", rid, what, ...}`. */
export class Requester {
  private pending = new Map<string, Pending>();
  private seq = 0;
  private prefix = Math.random().toString(36).slice(2, 10);
  private handler = (msg: unknown): void => {
    const m = msg as { type?: string; rid?: string; data?: unknown; error?: string };
    if (!m || m.type !== "response" || typeof m.rid !== "string") return;
    this.offline.heard();
    this.settle(m.rid, m.data, m.error);
  };
  /** Answers from the data saved with the notebook when no kernel answers. */
  private offline: OfflineAnswerer;

  constructor(private model: AnyModel, private timeoutMs = 60000) {
    model.on("msg:custom", this.handler);
    this.offline = new OfflineAnswerer(model, () => storeFor(model).cols);
  }

  private settle(rid: string, data: unknown, error?: string): void {
    const p = this.pending.get(rid);
    if (!p) return;
    this.pending.delete(rid);
    clearTimeout(p.timer);
    if (error) p.reject(new Error(error));
    else p.resolve(data);
  }

  request<T>(what: string, extra: Record<string, unknown> = {}): Promise<T> {
    const rid = `${this.prefix}-${++this.seq}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(rid);
        reject(new Error(`no answer from the kernel for "${what}"`));
      }, this.timeoutMs);
      this.pending.set(rid, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.model.send({ type: "request", rid, what, ...extra });
      this.offline.arm({ what, ...extra }, (data, error) => this.settle(rid, data, error));
    });
  }

  dispose(): void {
    this.model.off("msg:custom", this.handler);
    this.offline.dispose();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error("closed"));
    }
    this.pending.clear();
  }
}
