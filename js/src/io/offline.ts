/**
 * Answers without a kernel, from the data saved with the notebook (the `_offline` trait,
 * made by prime_nb/widget/_offline.py).
 *
 * A page can run the widget with no kernel behind it: an HTML export of an executed
 * notebook, a notebook reopened with its saved widget state. Requests then go nowhere.
 * When a request is not answered within OFFLINE_AFTER_MS and no answer was ever heard,
 * the widget goes offline: this and every later request is answered here, at once. The
 * first kernel answer heard switches back. What was saved is bounded (first lines of the
 * first `kept` entries); the answers say what is not there.
 */

import type { AnyModel } from "@anywidget/types";
import { idAt, type Columns } from "../model/data";
import { searchTexts } from "../model/filter";

export const OFFLINE_AFTER_MS = 3000;
export const NOT_SAVED = "not saved with the notebook";
export const SAVED_NOTE = "Saved with the notebook: the first line only. Run the notebook with a kernel for the whole entry.";

/** The `_offline` trait. */
export interface OfflineData {
  n: number;
  kept: number;
  origin: string | null;
  lines: string[];
  tools: [number, string][];
}

/** The `_offline` value of a model, or null when it is missing or malformed. */
export function offlineData(value: unknown): OfflineData | null {
  const v = value as Partial<OfflineData> | null | undefined;
  if (!v || typeof v !== "object" || !Array.isArray(v.lines) || typeof v.kept !== "number") return null;
  return {
    n: Number(v.n) || 0,
    kept: Math.min(v.kept, v.lines.length),
    origin: typeof v.origin === "string" ? v.origin : null,
    lines: v.lines.map((s) => (typeof s === "string" ? s : "")),
    tools: Array.isArray(v.tools) ? v.tools.filter((t) => Array.isArray(t) && typeof t[1] === "string") : [],
  };
}

function isoAt(data: OfflineData, cols: Columns, i: number): string | null {
  const origin = data.origin ? Date.parse(data.origin) : NaN;
  if (Number.isNaN(origin)) return null;
  return new Date(origin + (cols.time[i] ?? 0) * 1000).toISOString();
}

/** Answer one request from saved data, the way prime_nb/widget/_data.py would. */
export function answerOffline(data: OfflineData, cols: Columns, msg: Record<string, unknown>): unknown {
  const saved = (i: number): boolean => Number.isInteger(i) && i >= 0 && i < data.kept && i < cols.n;
  const tools = new Map(data.tools);
  const index = Number(msg.index);
  switch (msg.what) {
    case "lines": {
      const indices = Array.isArray(msg.indices) ? (msg.indices as unknown[]) : [];
      return { lines: indices.map((i) => (saved(Number(i)) ? data.lines[Number(i)] : "")) };
    }
    case "search": {
      const texts = data.lines.slice(0, data.kept).map((line, i) =>
        [line, cols.labels.get(i) ?? "", tools.get(i) ?? ""].join(" "),
      );
      return { indices: searchTexts(texts, String(msg.query ?? "")) };
    }
    case "preview":
      if (!(index >= 0 && index < cols.n)) throw new Error(`no entry at index ${String(msg.index)}`);
      return {
        role: null,
        type: null,
        time: isoAt(data, cols, index),
        first_line: saved(index) ? data.lines[index] : `(${NOT_SAVED})`,
        tokens: cols.tokens[index] ?? 0,
        tool_name: tools.get(index) ?? null,
      };
    case "entry": {
      if (!(index >= 0 && index < cols.n)) throw new Error(`no entry at index ${String(msg.index)}`);
      if (!saved(index)) throw new Error(`${NOT_SAVED} (it keeps the first ${data.kept} of ${data.n} entries)`);
      const parent = cols.parent[index];
      return {
        index,
        id: idAt(cols, index),
        kind: cols.kind[index],
        entry: {
          type: "saved",
          id: idAt(cols, index),
          parentId: parent >= 0 ? idAt(cols, parent) : null,
          timestamp: isoAt(data, cols, index),
          first_line: data.lines[index],
          tool: tools.get(index) ?? null,
          note: SAVED_NOTE,
        },
        label: cols.labels.get(index) ?? null,
        tool_results: {},
        tool_call: null,
        usage: null,
        cost: null,
        model: null,
      };
    }
    case "entries":
      return { entries: eachEntry(msg, (index) => answerOffline(data, cols, { what: "entry", index })) };
    case "context":
      throw new Error(`${NOT_SAVED}: the context needs the kernel`);
    default:
      throw new Error(`unknown request ${String(msg.what)}`);
  }
}

/** The "entries" answer: a row's "entry" answer each, or ``{index, error}`` for a row that
 * has none (as prime_nb/widget/_data.py answers). */
export function eachEntry(msg: Record<string, unknown>, one: (index: number) => unknown): unknown[] {
  if (!Array.isArray(msg.indices)) throw new Error("entries needs a list of indices");
  return (msg.indices as unknown[]).slice(0, 50).map((raw) => {
    const index = Number(raw);
    try {
      return one(index);
    } catch (e) {
      return { index, error: (e as Error).message };
    }
  });
}

type Settle = (data: unknown, error?: string) => void;

/** Decides when the kernel is missing, and then answers requests from the saved data. */
export class OfflineAnswerer {
  /** "unknown" until a kernel answer is heard ("live") or a request times out ("offline"). */
  state: "unknown" | "live" | "offline" = "unknown";
  private timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private model: AnyModel,
    private cols: () => Columns,
    private afterMs = OFFLINE_AFTER_MS,
  ) {}

  /** A kernel answered: requests go to the kernel alone from now on. */
  heard(): void {
    this.state = "live";
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Watch a request just sent; `settle` it from saved data if the kernel is missing. */
  arm(msg: Record<string, unknown>, settle: Settle): void {
    if (this.state === "live") return;
    const data = offlineData(this.model.get("_offline"));
    if (!data) return;
    const answer = (): void => {
      try {
        settle(answerOffline(data, this.cols(), msg));
      } catch (e) {
        settle(null, (e as Error).message);
      }
    };
    if (this.state === "offline") {
      const t = setTimeout(() => {
        this.timers.delete(t);
        answer();
      }, 0);
      this.timers.add(t);
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.state === "live") return;
      this.state = "offline";
      answer();
    }, this.afterMs);
    this.timers.add(t);
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
