/** The side panel: one entry in full, or the context the model saw at an entry. */

import { KIND_NAMES, KIND_STYLES, Kind } from "../model/constants";
import { button, clear, el, fmtCost, fmtTime, fmtTokens } from "./dom";
import { renderRest, renderWithin, splitMarkdown } from "./mdchunks";
import { imageElement, renderMarkdown } from "./sanitize";

/** A tool result paired with a tool call (as sent by Python). */
export interface PairedResult {
  index: number;
  id: string;
  tool_name?: string | null;
  is_error?: boolean;
  content?: unknown;
  details?: unknown;
}

/** The answer to an "entry" request. */
export interface EntryDetail {
  index: number;
  id: string;
  kind: number;
  entry: Record<string, unknown>;
  label?: string | null;
  tool_results?: Record<string, PairedResult>;
  tool_call?: {
    call_id: string;
    name: string;
    arguments: unknown;
    assistant_index: number;
    assistant_id: string;
  } | null;
  usage?: Record<string, unknown> | null;
  cost?: number | null;
  model?: string | null;
}

export interface ContextItem {
  role: string;
  entry_id: string | null;
  index: number;
  text: string;
  tokens: number;
}

/** The answer to a "context" request. */
export interface ContextDetail {
  index: number;
  model?: string | null;
  provider?: string | null;
  thinking_level?: string | null;
  messages: ContextItem[];
  total_tokens?: number;
}

export interface PanelActions {
  selectId(id: string): void;
  selectIndex(index: number): void;
  showContext(index: number): void;
  close(): void;
}

const MAX_TEXT = 60000;
const MAX_MARKDOWN = 200000;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : JSON.stringify(v));

/** Pre block with text, cut to a length with a button to show the rest. */
function preText(text: string, className = "pnb-pre"): HTMLElement {
  const pre = el("pre", className);
  if (text.length > MAX_TEXT) {
    pre.textContent = text.slice(0, MAX_TEXT);
    const wrap = el("div");
    const more = button(`Show all (${text.length.toLocaleString("en-US")} chars)`, "Show the whole text", () => {
      pre.textContent = text;
      more.remove();
    }, "pnb-link-btn");
    wrap.append(pre, more);
    return wrap;
  }
  pre.textContent = text;
  return pre;
}

/** Markdown, rendered within a budget; the rest after "Show all", a piece per task. */
function markdown(text: string): HTMLElement {
  if (text.length > MAX_MARKDOWN) return preText(text);
  const div = el("div", "pnb-md");
  const pieces = splitMarkdown(text);
  const next = renderWithin(div, pieces, renderMarkdown);
  if (next >= pieces.length) return div;
  const wrap = el("div");
  const more = button(`Show all (${text.length.toLocaleString("en-US")} chars)`, "Show the whole text", () => {
    more.disabled = true;
    renderRest(div, pieces, next, renderMarkdown, () => more.remove());
  }, "pnb-link-btn");
  wrap.append(div, more);
  return wrap;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? "null";
  } catch {
    return String(value);
  }
}

/** JSON with long strings (base64 images, huge outputs) shortened, for the raw view. */
function shortJson(value: unknown): string {
  return json(
    JSON.parse(
      JSON.stringify(value ?? null, (_k, v: unknown) =>
        typeof v === "string" && v.length > 4000 ? `${v.slice(0, 4000)}… (${v.length.toLocaleString("en-US")} chars)` : v,
      ),
    ),
  );
}

/** Tool arguments as people read them: an object a key per line, nested values indented,
 * strings as they are (a multi-line string as its lines, under ``key: |``) rather than
 * JSON's escapes. Only text: the caller puts it in a ``<pre>`` as textContent. A string
 * that is itself JSON (some dialects send arguments that way) is read first. */
export function argsText(value: unknown): string {
  if (typeof value === "string") {
    const t = value.trim();
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        return argsText(JSON.parse(t) as unknown);
      } catch {
        return value;
      }
    }
    return value;
  }
  const lines: string[] = [];
  writeArgs(value, "", lines, new Set());
  return lines.join("\n");
}

function writeArgs(value: unknown, indent: string, out: string[], seen: Set<unknown>): void {
  const entries: [string, unknown][] | null = Array.isArray(value)
    ? value.map((v) => ["-", v])
    : isObj(value)
      ? Object.entries(value)
      : null;
  if (!entries) {
    out.push(indent + scalar(value));
    return;
  }
  if (!entries.length) {
    out.push(indent + (Array.isArray(value) ? "[]" : "{}"));
    return;
  }
  if (seen.has(value)) {
    out.push(`${indent}(cycle)`);
    return;
  }
  seen.add(value);
  for (const [k, v] of entries) {
    const key = k === "-" && Array.isArray(value) ? "-" : `${k}:`;
    if (typeof v === "string" && v.includes("\n")) {
      out.push(`${indent}${key} |`);
      for (const line of v.replace(/\r\n?/g, "\n").split("\n")) out.push(`${indent}  ${line}`);
    } else if ((Array.isArray(v) && v.length) || (isObj(v) && Object.keys(v).length)) {
      out.push(`${indent}${key}`);
      writeArgs(v, `${indent}  `, out, seen);
    } else {
      out.push(`${indent}${key} ${scalar(v)}`);
    }
  }
  seen.delete(value);
}

function scalar(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return "[]";
  if (isObj(v)) return "{}";
  return json(v);
}

/** Open the Thinking blocks under ``root`` that hold a word of ``query``: a search hit
 * inside a folded block would otherwise show nothing of why the entry matched. The words
 * are matched as the search matches them (lower case, anywhere in the text). */
export function revealHits(root: HTMLElement, query: string): number {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return 0;
  let opened = 0;
  for (const d of root.querySelectorAll<HTMLDetailsElement>("details.pnb-thinking")) {
    const text = (d.textContent ?? "").toLowerCase();
    if (!d.open && words.some((w) => text.includes(w))) {
      d.open = true;
      opened++;
    }
  }
  return opened;
}

function idButton(id: unknown, actions: PanelActions): HTMLElement {
  const s = str(id);
  if (!s || s === "root") return el("code", "", s || "–");
  return button(s, "Go to this entry", () => actions.selectId(s), "pnb-id-btn");
}

function section(title: string, className = ""): { box: HTMLElement; body: HTMLElement } {
  const box = el("section", `pnb-sec ${className}`.trim());
  box.append(el("h4", "pnb-sec-title", title));
  const body = el("div", "pnb-sec-body");
  box.append(body);
  return { box, body };
}

function kv(rows: [string, string | HTMLElement][]): HTMLElement {
  const table = el("table", "pnb-kv");
  for (const [k, v] of rows) {
    const tr = el("tr");
    tr.append(el("th", "", k));
    const td = el("td");
    if (typeof v === "string") td.textContent = v;
    else td.append(v);
    tr.append(td);
    table.append(tr);
  }
  return table;
}

/** Content (string or blocks) of a user/custom/tool message. */
function contentBlocks(content: unknown, asMarkdown: boolean, detail: EntryDetail | null, actions: PanelActions): HTMLElement {
  const box = el("div", "pnb-content");
  if (typeof content === "string") {
    box.append(asMarkdown ? markdown(content) : preText(content));
    return box;
  }
  if (!Array.isArray(content)) {
    if (content != null) box.append(preText(json(content)));
    return box;
  }
  for (const block of content) {
    if (!isObj(block)) {
      box.append(preText(str(block)));
      continue;
    }
    const type = str(block.type);
    if (type === "text") {
      const text = str(block.text);
      box.append(asMarkdown ? markdown(text) : preText(text));
    } else if (type === "thinking") {
      const d = el("details", "pnb-thinking");
      const summary = el("summary", "", block.redacted ? "Thinking (redacted)" : "Thinking");
      d.append(summary, markdown(str(block.thinking)));
      box.append(d);
    } else if (type === "image") {
      const img = imageElement(block.mimeType ?? block.mime_type, block.data);
      box.append(img ?? el("div", "pnb-blocked", `[image not shown: ${str(block.mimeType).slice(0, 40) || "unknown type"}]`));
    } else if (type === "toolCall") {
      box.append(toolCall(block, detail, actions));
    } else {
      box.append(preText(json(block)));
    }
  }
  return box;
}

function toolCall(block: Record<string, unknown>, detail: EntryDetail | null, actions: PanelActions): HTMLElement {
  const wrap = el("div", "pnb-tool");
  const head = el("div", "pnb-tool-head");
  head.append(el("span", "pnb-tool-icon", "⚙"), el("span", "pnb-tool-name", str(block.name)));
  const callId = str(block.id);
  head.append(el("span", "pnb-muted", callId));
  wrap.append(head);
  const args = block.arguments;
  wrap.append(preText(argsText(args), "pnb-pre pnb-args"));
  const result = detail?.tool_results?.[callId];
  if (result) {
    const rhead = el("div", `pnb-tool-result-head${result.is_error ? " pnb-error-text" : ""}`);
    rhead.append(el("span", "", result.is_error ? "✗ Result (error)" : "↳ Result"));
    rhead.append(button(result.id, "Go to the tool result", () => actions.selectIndex(result.index), "pnb-id-btn"));
    wrap.append(rhead, contentBlocks(result.content, false, null, actions));
  } else {
    wrap.append(el("div", "pnb-muted pnb-small", "No result in this session."));
  }
  return wrap;
}

function badge(kind: number, text: string): HTMLElement {
  const b = el("span", "pnb-badge", text);
  b.style.setProperty("--pnb-badge", KIND_STYLES[kind]?.color ?? "#888");
  return b;
}

function title(detail: EntryDetail): string {
  const e = detail.entry;
  const msg = isObj(e.message) ? e.message : null;
  if (detail.kind === Kind.ToolResult && msg) return `tool result · ${str(msg.toolName)}`;
  if (detail.kind === Kind.CustomMessage) return `custom message · ${str(e.customType ?? msg?.customType)}`;
  if (detail.kind === Kind.Custom) return `extension state · ${str(e.customType)}`;
  if (detail.kind === Kind.Other) return `other · ${str(e.type)}`;
  return KIND_NAMES[detail.kind] ?? str(e.type);
}

/** The content of one entry (messages as markdown, tool calls with their results,
 * compactions with their summary, usage): the panel's body, and a transcript item. */
export function entryBody(detail: EntryDetail, actions: PanelActions): HTMLElement {
  const e = detail.entry ?? {};
  const msg = isObj(e.message) ? e.message : null;
  const main = el("div", "pnb-entry-body");
  const type = str(e.type);
  if (msg) {
    const role = str(msg.role);
    if (role === "user" || role === "custom" || role === "hookMessage") {
      if (msg.customType) main.append(kv([["custom type", str(msg.customType)]]));
      main.append(contentBlocks(msg.content, true, detail, actions));
    } else if (role === "assistant") {
      main.append(contentBlocks(msg.content, true, detail, actions));
      if (msg.errorMessage) main.append(el("div", "pnb-error-box", str(msg.errorMessage)));
    } else if (role === "toolResult") {
      const call = detail.tool_call;
      if (call) {
        const { box, body: b } = section("Call");
        const h = el("div", "pnb-tool-head");
        h.append(el("span", "pnb-tool-icon", "⚙"), el("span", "pnb-tool-name", call.name));
        h.append(button(call.assistant_id, "Go to the call", () => actions.selectIndex(call.assistant_index), "pnb-id-btn"));
        b.append(h, preText(argsText(call.arguments), "pnb-pre pnb-args"));
        main.append(box);
      }
      const { box, body: b } = section(msg.isError ? "Result (error)" : "Result", msg.isError ? "pnb-error-sec" : "");
      b.append(contentBlocks(msg.content, false, detail, actions));
      main.append(box);
    } else if (role === "bashExecution") {
      main.append(preText(`$ ${str(msg.command)}`, "pnb-pre pnb-cmd"));
      main.append(preText(str(msg.output)));
      const rows: [string, string][] = [["exit code", str(msg.exitCode)]];
      if (msg.cancelled) rows.push(["cancelled", "yes"]);
      if (msg.truncated) rows.push(["truncated", "yes"]);
      if (msg.fullOutputPath) rows.push(["full output", str(msg.fullOutputPath)]);
      main.append(kv(rows));
    } else {
      main.append(contentBlocks(msg.content ?? msg.summary, true, detail, actions));
    }
  } else if (type === "compaction") {
    main.append(
      kv([
        ["tokens before", fmtTokens(Number(e.tokensBefore))],
        ["first kept entry", idButton(e.firstKeptEntryId, actions)],
      ]),
    );
    main.append(markdown(str(e.summary)));
    const det = isObj(e.details) ? e.details : null;
    if (det) {
      for (const key of ["readFiles", "modifiedFiles"]) {
        const files = det[key];
        if (Array.isArray(files) && files.length) {
          const { box, body: b } = section(key === "readFiles" ? "Read files" : "Modified files");
          const ul = el("ul", "pnb-files");
          for (const f of files) ul.append(el("li", "", str(f)));
          b.append(ul);
          main.append(box);
        }
      }
    }
  } else if (type === "branch_summary") {
    main.append(kv([["from", idButton(e.fromId, actions)]]));
    main.append(markdown(str(e.summary)));
  } else if (type === "custom_message") {
    main.append(kv([["custom type", str(e.customType)], ["display", str(e.display)]]));
    main.append(contentBlocks(e.content, true, detail, actions));
  } else if (type === "model_change") {
    main.append(kv([["provider", str(e.provider)], ["model", str(e.modelId)]]));
  } else if (type === "thinking_level_change") {
    main.append(kv([["thinking level", str(e.thinkingLevel)]]));
  } else if (type === "label") {
    main.append(kv([["target", idButton(e.targetId, actions)], ["label", e.label == null ? "(cleared)" : str(e.label)]]));
  } else if (type === "session_info") {
    main.append(kv([["name", str(e.name)]]));
  } else {
    main.append(preText(shortJson(e)));
  }

  const usage = detail.usage;
  if (usage && isObj(usage)) {
    const { box, body: b } = section("Usage");
    const rows: [string, string][] = [];
    for (const key of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]) {
      if (usage[key] != null) rows.push([key, fmtTokens(Number(usage[key]))]);
    }
    const cost = detail.cost ?? (isObj(usage.cost) ? Number(usage.cost.total) : null);
    rows.push(["cost", fmtCost(cost)]);
    b.append(kv(rows));
    main.append(box);
  }
  return main;
}

/** Render one entry into the panel body. */
export function renderEntry(body: HTMLElement, detail: EntryDetail, actions: PanelActions, isLeaf: boolean): void {
  clear(body);
  const e = detail.entry ?? {};
  const msg = isObj(e.message) ? e.message : null;

  const head = el("div", "pnb-panel-head");
  const titleRow = el("div", "pnb-title-row");
  titleRow.append(badge(detail.kind, title(detail)));
  if (detail.label) titleRow.append(el("span", "pnb-label-tag", detail.label));
  const errorText = msg && (msg.isError === true || msg.stopReason === "error" || msg.stopReason === "aborted");
  if (errorText) titleRow.append(el("span", "pnb-error-tag", msg.stopReason === "aborted" ? "aborted" : "error"));
  head.append(titleRow);
  const meta = el("div", "pnb-meta");
  meta.append(el("code", "pnb-entry-id", detail.id));
  const ts = str(e.timestamp);
  if (ts) meta.append(el("span", "", fmtTime(ts)));
  if (detail.model) meta.append(el("span", "", detail.model));
  head.append(meta);
  const tools = el("div", "pnb-head-actions");
  tools.append(
    button(isLeaf ? "Context at this leaf" : "Context here", "What the model saw at this entry", () =>
      actions.showContext(detail.index),
    ),
  );
  if (e.parentId) {
    const pb = button("↑ Parent", "Go to the parent entry", () => actions.selectId(str(e.parentId)));
    tools.append(pb);
  }
  head.append(tools);
  body.append(head);

  body.append(entryBody(detail, actions));

  const raw = el("details", "pnb-raw");
  raw.append(el("summary", "", "Raw JSON"));
  raw.addEventListener("toggle", () => {
    if (raw.open && raw.childElementCount === 1) raw.append(preText(shortJson(e)));
  });
  body.append(raw);
}

/** Render the context the model saw at an entry. */
export function renderContext(body: HTMLElement, ctx: ContextDetail, actions: PanelActions, back: () => void): void {
  clear(body);
  const head = el("div", "pnb-panel-head");
  const row = el("div", "pnb-title-row");
  row.append(el("span", "pnb-ctx-title", "Context the model saw"));
  head.append(row);
  const meta = el("div", "pnb-meta");
  if (ctx.model) meta.append(el("span", "", `${ctx.provider ? `${ctx.provider} / ` : ""}${ctx.model}`));
  meta.append(el("span", "", `thinking: ${ctx.thinking_level || "off"}`));
  meta.append(el("span", "", `${ctx.messages.length} messages`));
  const total = ctx.total_tokens ?? ctx.messages.reduce((a, m) => a + (m.tokens || 0), 0);
  meta.append(el("span", "", `≈${fmtTokens(total)} tokens`));
  head.append(meta);
  const tools = el("div", "pnb-head-actions");
  tools.append(button("← Entry", "Back to the entry", back));
  head.append(tools);
  body.append(head);
  const list = el("ol", "pnb-ctx-list");
  for (const m of ctx.messages) {
    const li = el("li", `pnb-ctx-item pnb-role-${m.role.replace(/[^a-zA-Z]/g, "")}`);
    const top = el("div", "pnb-ctx-top");
    top.append(el("span", "pnb-ctx-role", m.role));
    top.append(el("span", "pnb-muted", `≈${fmtTokens(m.tokens)}`));
    if (m.index >= 0) {
      top.append(button(m.entry_id ?? "", "Go to this entry", () => actions.selectIndex(m.index), "pnb-id-btn"));
    }
    li.append(top, el("div", "pnb-ctx-text", m.text));
    list.append(li);
  }
  body.append(list);
}

export function renderMessage(body: HTMLElement, text: string, className = "pnb-muted"): void {
  clear(body);
  body.append(el("div", `pnb-panel-msg ${className}`, text));
}
