// The hover tooltip: its content for an entry or a segment, and where it goes on screen.
import { Flag, KIND_NAMES, KIND_STYLES, Kind } from "../model/constants";
import type { Columns } from "../model/data";
import type { AggregateInfo, Display, SegmentInfo } from "../model/display";
import { clear, el, fmtDuration, fmtTime, fmtTokens } from "./dom";

/** What the kernel answers for a hover preview. */
export interface Preview {
  role?: string | null;
  type?: string | null;
  time?: string | null;
  first_line?: string | null;
  tokens?: number | null;
  tool_name?: string | null;
}

/** Top-left of a ``tw`` x ``th`` tooltip beside the pointer, flipped to stay inside a
 * ``width`` x ``height`` stage (pure: the view applies it). */
export function tooltipPosition(
  pointer: { x: number; y: number },
  tw: number,
  th: number,
  width: number,
  height: number,
): { left: number; top: number } {
  let left = pointer.x + 14;
  let top = pointer.y + 14;
  if (left + tw > width - 4) left = Math.max(4, pointer.x - tw - 14);
  if (top + th > height - 4) top = Math.max(4, pointer.y - th - 14);
  return { left, top };
}

/** What "peak N tokens" on a row of many entries is. */
export const PEAK_MEANS = "the largest turn: context read plus answer";
/** What "N output tokens" on a row of many entries is. */
export const OUTPUT_MEANS = "what its turns wrote, added up";

/** A collapsed segment of the Branches view: its size, time span, roles and marks. */
export function fillSegmentTip(tip: HTMLElement, s: SegmentInfo, action = "click to expand"): void {
  clear(tip);
  const head = el("div", "pnb-tip-head");
  head.append(el("span", "pnb-tip-role", `${s.size.toLocaleString("en-US")} entries`));
  head.append(el("span", "pnb-muted", fmtDuration(s.t1 - s.t0)));
  tip.append(head);
  tip.append(
    el("div", "pnb-tip-text", `${s.users} user · ${s.assistants} assistant · ${s.tools} tool · ${s.others} other`),
  );
  const foot: string[] = [`peak ${fmtTokens(s.tokens)} tokens (${PEAK_MEANS})`];
  if (s.output) foot.push(`${fmtTokens(s.output)} output tokens (${OUTPUT_MEANS})`);
  if (s.labels) foot.push(`${s.labels} label${s.labels > 1 ? "s" : ""}`);
  if (s.compactions) foot.push(`${s.compactions} compaction${s.compactions > 1 ? "s" : ""}`);
  foot.push(action);
  tip.append(el("div", "pnb-tip-foot", foot.join(" · ")));
}

/** A Branches box that stands for several runs: what it is, what it holds, and that a
 * click (or zooming in) opens it. */
export function fillAggregateTip(tip: HTMLElement, a: AggregateInfo): void {
  clear(tip);
  const n = (v: number, one: string, many = `${one}s`): string => `${v.toLocaleString("en-US")} ${v === 1 ? one : many}`;
  const what =
    a.kind === "span"
      ? `Entries ${a.from.toLocaleString("en-US")}-${a.to.toLocaleString("en-US")} of the ${a.onActive ? "active" : "main"} path, with what forks off them`
      : a.kind === "roots"
        ? `${n(a.subtrees, "conversation")} with a root of ${a.subtrees === 1 ? "its" : "their"} own`
        : `${n(a.subtrees, "side branch", "side branches")} of one fork`;
  tip.append(el("div", "pnb-tip-head", what));
  const parts = [n(a.entries, "entry", "entries"), n(a.branches, "branch end"), n(a.forks, "fork"), `peak ${fmtTokens(a.tokens)} tokens (${PEAK_MEANS})`];
  if (a.output) parts.push(`${fmtTokens(a.output)} output tokens (${OUTPUT_MEANS})`);
  if (a.compactions) parts.push(n(a.compactions, "compaction"));
  if (a.errors) parts.push(n(a.errors, "error"));
  if (a.labels) parts.push(n(a.labels, "label"));
  tip.append(el("div", "pnb-tip-text", parts.join(" · ")));
  tip.append(el("div", "pnb-tip-foot", "click to open · zoom in to open step by step"));
}

export interface EntryFacts {
  kind: number;
  label: string | undefined;
  tokens: number;
  error: boolean;
  /** What the marks drawn with the entry mean (the legend's words, where they are). */
  notes?: string[];
}

/** One entry: its kind at once, then its time, first line and tokens when the preview
 * arrives (dropped if the pointer has moved on: ``current()`` is false). Text goes in as
 * textContent only: session text is untrusted. */
export function fillEntryTip(
  tip: HTMLElement,
  facts: EntryFacts,
  preview: Promise<Preview>,
  current: () => boolean,
  filled: () => void,
): void {
  clear(tip);
  const { kind } = facts;
  const head = el("div", "pnb-tip-head");
  const dot = el("span", "pnb-dot");
  dot.style.setProperty("--pnb-badge", KIND_STYLES[kind].color);
  head.append(dot, el("span", "pnb-tip-role", KIND_NAMES[kind]));
  const timeEl = el("span", "pnb-muted", "");
  head.append(timeEl);
  tip.append(head);
  const text = el("div", "pnb-tip-text", "…");
  const foot = el("div", "pnb-tip-foot", "");
  tip.append(text, foot);
  preview.then(
    (p) => {
      if (!current()) return;
      if (p.role && p.role !== KIND_NAMES[kind]) head.children[1].textContent = `${KIND_NAMES[kind]} · ${p.tool_name || p.role}`;
      else if (p.tool_name) head.children[1].textContent = `${KIND_NAMES[kind]} · ${p.tool_name}`;
      timeEl.textContent = fmtTime(p.time);
      text.textContent = (p.first_line || "").slice(0, 200) || "(no text)";
      const bits: string[] = [];
      const tok = p.tokens ?? facts.tokens;
      if (tok) bits.push(`${fmtTokens(tok)} tokens`);
      if (facts.label) bits.push(`label: ${facts.label}`);
      if (facts.error) bits.push("error");
      foot.textContent = bits.join(" · ");
      for (const note of facts.notes ?? []) tip.append(el("div", "pnb-tip-foot", note));
      filled();
    },
    () => {
      text.textContent = "(preview unavailable)";
    },
  );
}

/** Fill the tip for display node ``d``: a Branches box's, a folded row's or a run box's
 * figures, or the entry's facts and preview. False when the node has no tip. */
export function fillNodeTip(
  tip: HTMLElement,
  cols: Columns,
  disp: Display,
  d: number,
  folded: boolean,
  preview: (i: number) => Promise<Preview>,
  still: () => boolean,
  place: () => void,
): boolean {
  const i = disp.entry[d];
  const a = disp.aggregates.get(i);
  if (a) {
    fillAggregateTip(tip, a);
    return true;
  }
  if (disp.isSeg[d]) {
    const s = folded ? disp.folds.get(i) : disp.segments.get(i);
    if (!s) return false;
    fillSegmentTip(tip, s, folded ? FOLDED_NOTE : undefined);
    // The box's title whole (a box fits it to two lines): the run's first prompt, or the
    // compaction it starts with.
    const titled = cols.kind[s.head] === Kind.Compaction ? s.head : s.firstUser;
    if (titled >= 0) {
      const title = el("div", "pnb-tip-text pnb-tip-title", "…");
      tip.children[0].after(title);
      preview(titled).then(
        (p) => {
          if (!still()) return;
          title.textContent = (p.first_line || "").slice(0, 300) || "(no text)";
          place();
        },
        () => title.remove(),
      );
    }
    return true;
  }
  const facts = { kind: cols.kind[i], label: cols.labels.get(i), tokens: cols.tokens[i], error: Boolean(cols.flags[i] & Flag.Error), notes: markNotes(cols, i) };
  fillEntryTip(tip, facts, preview(i), still, place);
  return true;
}

/** The hollow pill of a folded row, in words. */
export const FOLDED_NOTE = "hollow pill: a folded row; click or zoom in to open it";

/** What the marks drawn with entry ``i`` mean: the peach band of a compaction, the
 * orange dashed rule of a context cut above the first entry the model kept. */
export function markNotes(cols: Columns, i: number): string[] {
  const out: string[] = [];
  if (cols.kind[i] === Kind.Compaction) out.push("peach band: a compaction; the context before it was summarised here");
  if (cols.compactions.some((c) => c.firstKept === i)) out.push("orange dashed rule above: the context cut; after the compaction the model saw this entry and what follows, not what came before");
  return out;
}
