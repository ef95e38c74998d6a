/**
 * The answers of an exported page, assembled from its parts (pure: no DOM, no page).
 *
 * The export keeps each thing once: every entry as read from the file (in chunks of
 * rows), and small tables beside them (previews as columns, labels, costs, which tool
 * call each result answers). The kernel's "entry" answer repeats a result's content in
 * its assistant's detail; here it is put together when asked, from the entries.
 */

import type { EntryDetail, PairedResult } from "../ui/panelcontent";
import type { Preview } from "../ui/tipcontent";

/** Previews as columns, a value per row (the kernel's "preview" answer, row-wise), but
 * their first lines, which are a part of their own (the tree's text column). */
export interface PreviewColumns {
  role?: (string | null)[];
  type?: unknown[];
  time?: (string | null)[];
  tokens?: (number | null)[];
  tool_name?: (string | null)[];
}

/** What an entry's detail needs beside the entry itself. */
export interface DetailExtras {
  /** [row, label in force] */
  labels?: [number, string][];
  /** cost per row (null when unknown) */
  cost?: (number | null)[];
  /** tool calls in file order: the assistant's row, call id, tool name, the result's row (-1: none) */
  calls?: { assistant?: number[]; call_id?: (string | null)[]; name?: (string | null)[]; result?: number[] };
}

type Entry = Record<string, unknown>;

const isDict = (v: unknown): v is Entry => typeof v === "object" && v !== null && !Array.isArray(v);

/** Python's truthiness (the kernel computes ``bool(value)``): empty containers are false. */
export function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isDict(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** The preview of row ``i`` from the columns and the first lines, or null when the page
 * has neither. */
export function previewAt(cols: PreviewColumns | null | undefined, lines: (string | null)[] | null | undefined, i: number): Preview | null {
  const n = Math.max(cols?.role?.length ?? 0, lines?.length ?? 0);
  if ((!cols && !lines) || !(i >= 0 && i < n)) return null;
  return {
    role: cols?.role?.[i] ?? null,
    type: (cols?.type?.[i] ?? null) as string | null,
    time: cols?.time?.[i] ?? null,
    first_line: lines?.[i] ?? "",
    tokens: cols?.tokens?.[i] ?? 0,
    tool_name: cols?.tool_name?.[i] ?? null,
  };
}

interface Call {
  callId: string;
  name: string | null;
  assistant: number;
  /** which toolCall block of the assistant's content this is (0 = the first) */
  ordinal: number;
  result: number;
}

/** The calls table indexed both ways, as the kernel pairs them: an assistant's answered
 * calls in order, and for each result the last call it answers. */
export class CallIndex {
  readonly byAssistant = new Map<number, Call[]>();
  readonly byResult = new Map<number, Call>();

  constructor(calls: DetailExtras["calls"], n: number) {
    const assistants = calls?.assistant ?? [];
    const seen = new Map<number, number>();
    for (let k = 0; k < assistants.length; k++) {
      const assistant = assistants[k];
      const ordinal = seen.get(assistant) ?? 0;
      seen.set(assistant, ordinal + 1);
      const result = calls?.result?.[k] ?? -1;
      const callId = calls?.call_id?.[k];
      if (!(result >= 0 && result < n) || typeof callId !== "string" || !(assistant >= 0 && assistant < n)) continue;
      const call = { callId, name: calls?.name?.[k] ?? null, assistant, ordinal, result };
      let list = this.byAssistant.get(assistant);
      if (!list) this.byAssistant.set(assistant, (list = []));
      list.push(call);
      this.byResult.set(result, call);
    }
  }
}

/** The ``ordinal``-th toolCall block's arguments in an entry's message (null if none). */
export function callArguments(entry: Entry | null, ordinal: number): unknown {
  const message = entry && isDict(entry.message) ? entry.message : null;
  const content = message?.content;
  if (!Array.isArray(content)) return null;
  let k = 0;
  for (const block of content) {
    if (!isDict(block) || block.type !== "toolCall") continue;
    if (k++ === ordinal) return block.arguments ?? null;
  }
  return null;
}

/** Where an entry's detail is taken from. */
export interface DetailSources {
  n: number;
  idAt(row: number): string;
  kindAt(row: number): number;
  entryAt(row: number): Promise<Entry | null>;
  labels: Map<number, string>;
  cost: (number | null)[];
  calls: CallIndex;
}

/** The kernel's "entry" answer for ``row`` (see prime_nb.widget._data.SessionData.entry). */
export async function entryDetail(src: DetailSources, row: number): Promise<EntryDetail | null> {
  if (!(row >= 0 && row < src.n)) return null;
  const entry = await src.entryAt(row);
  if (!entry) return null;
  const message = isDict(entry.message) ? entry.message : null;
  const toolResults: Record<string, PairedResult> = {};
  for (const call of src.calls.byAssistant.get(row) ?? []) {
    const result = (await src.entryAt(call.result)) ?? {};
    const msg = isDict(result.message) ? result.message : result;
    toolResults[call.callId] = {
      index: call.result,
      id: src.idAt(call.result),
      tool_name: (msg.toolName ?? null) as string | null,
      is_error: pyTruthy(msg.isError),
      content: msg.content ?? null,
    };
  }
  const paired = src.calls.byResult.get(row);
  let toolCall: EntryDetail["tool_call"] = null;
  if (paired) {
    toolCall = {
      call_id: paired.callId,
      name: paired.name as string,
      arguments: callArguments(await src.entryAt(paired.assistant), paired.ordinal),
      assistant_id: src.idAt(paired.assistant),
      assistant_index: paired.assistant,
    };
  }
  return {
    index: row,
    id: src.idAt(row),
    kind: src.kindAt(row),
    entry,
    label: src.labels.get(row) ?? null,
    tool_results: toolResults,
    tool_call: toolCall,
    usage: message && isDict(message.usage) ? message.usage : null,
    cost: src.cost[row] ?? null,
    model: message ? ((message.model ?? null) as string | null) : null,
  };
}

/** Which chunk holds ``row``, given each chunk's first row (ascending); -1 if none. */
export function chunkOf(starts: number[], row: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || row < starts[0]) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
