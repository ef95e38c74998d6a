/** The Branches drawing's boxes: runs, side branches, roots and stretches of the main
 * line drawn as one box each, with what they hold written inside. */

import { COLORS, KIND_COUNT, KIND_STYLES, Kind } from "../model/constants";
import { fmtDuration } from "../ui/dom";
import type { AggregateInfo, Display } from "../model/display";
import type { Tree } from "../model/tree";
import { BOX_TEXT_FROM_PX } from "./aggregate";
import { fitText, fmtCount, roundRect, shapePath, truncate } from "../ui/canvas";
import { collides, onStage, type Frame } from "./frame";
import { titleLines, wrapLines } from "./boxtext";

/** Whether the box headed by entry ``head`` (a run, or a subtree drawn as one box) holds
 * a search hit. */
export function boxHasHit(disp: Display, tree: Tree, head: number, hits: Uint8Array, hitNodes?: Set<number>): boolean {
  const s = disp.segments.get(head);
  if (disp.aggregates.has(head)) {
    const d = disp.nodeOf[head];
    if (hitNodes) return hitNodes.has(d);
    for (let i = 0; i < hits.length; i++) if (hits[i] && disp.nodeOf[i] === d) return true;
    return false;
  }
  if (!s) return false;
  for (let v = s.tail, steps = 0; steps < s.size && v >= 0; v = tree.parent[v], steps++) if (hits[v]) return true;
  return false;
}

/** Collapsed segments: boxes that say what the run is: its first prompt, size, time
 * span and tokens, its label, errors and compaction, and a bar of its make-up. Text is
 * set in screen pixels (never under 11 px) and uses the box's whole width; a box is
 * never drawn smaller than its text needs (the view aggregates subtrees instead). */
export function drawBoxes(f: Frame): void {
  const segBucket = f.scene.buckets[KIND_COUNT];
  if (!segBucket || !segBucket.nodes.length) return;
  f.eachInView(segBucket, (d, px, py) => drawBox(f, d, px, py));
}

/** One box at (px, py): its outline (a stack for a subtree), make-up bar and text. */
export function drawBox(f: Frame, d: number, px: number, py: number): void {
  const { ctx, k, width, height, segH, theme } = f;
  const { disp } = f.scene;
  const segW = f.boxW(d);
  if (px < -segW || px > width + segW || py < -segH || py > height + segH) return;
  const i = disp.entry[d];
  const agg = disp.aggregates.get(i);
  const s = agg ? undefined : disp.segments.get(i);
  if (!agg && !s) return;
  f.nodes++;
  const x0 = px - segW / 2;
  const y0 = py - segH / 2;
  f.occupied.push({ d: -1, x: x0, y: y0, w: segW, h: segH });
  // A box on screen must carry its text, unless its title line is off the top or bottom
  // (texts are drawn whole or not at all).
  const titleY = y0 + Math.max(10.5, 13 * k);
  const titleOn = segH < BOX_TEXT_FROM_PX || (titleY - 8 >= 0 && titleY + 8 <= height);
  if (px >= 0 && px <= width && py >= 0 && py <= height && titleOn) f.landmarks.push(d);
  if (agg) {
    // A stack of boxes: two outlines peek out behind the front one.
    for (const off of [6, 3]) {
      ctx.beginPath();
      roundRect(ctx, x0 + off, y0 - off, segW, segH, Math.min(7 * k, segH / 2));
      ctx.fillStyle = theme.segFill;
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = theme.edge;
      ctx.stroke();
    }
  }
  ctx.beginPath();
  roundRect(ctx, x0, y0, segW, segH, Math.min(7 * k, segH / 2));
  ctx.fillStyle = theme.segFill;
  ctx.fill();
  const active = s ? s.onActive : Boolean(agg?.onActive);
  ctx.lineWidth = active ? 2.5 : 1.25;
  ctx.strokeStyle = active ? theme.active : theme.edge;
  if (agg) ctx.setLineDash([5, 3]);
  ctx.stroke();
  ctx.setLineDash([]);
  const pad = Math.max(Math.min(8 * k, 10), 6);
  const bx0 = x0 + pad;
  const room = segW - 2 * pad;
  const barH = Math.max(3 * k, 2);
  const barY = y0 + segH - barH - Math.max(4 * k, 3);
  if (s) {
    const parts: [number, string][] = [
      [s.users, KIND_STYLES[Kind.User].color],
      [s.assistants, KIND_STYLES[Kind.Assistant].color],
      [s.tools, KIND_STYLES[Kind.ToolResult].color],
      [s.others, KIND_STYLES[Kind.Other].color],
    ];
    let bx = bx0;
    for (const [count, color] of parts) {
      if (!count) continue;
      const w = (room * count) / s.size;
      ctx.fillStyle = color;
      ctx.fillRect(bx, barY, w, barH);
      bx += w;
    }
  }
  if (segH < BOX_TEXT_FROM_PX) return;
  const titlePx = Math.min(Math.max(12 * k, 12), 14);
  const smallPx = titlePx - 1;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const yTitle = y0 + Math.max(10.5, 13 * k);
  const yFig = yTitle + Math.max(13.5, 15 * k);
  const yMarks0 = yFig + Math.max(13, 14 * k);
  // A line whose box runs off the left edge starts at the edge, inside the box.
  const put = (text: string, y: number, px0: number, roomPx: number, fontPx: number): number => {
    const x = Math.max(px0, 2);
    if (!onStage(f, x, y, fontPx)) return 0;
    // Fitted to its room in the box; cut short by the stage's edge, it is not drawn.
    const shown = fitText(ctx, text, roomPx - (x - px0));
    if (!shown || x + ctx.measureText(shown).width > width - 2) return 0;
    ctx.fillText(shown, x, y);
    const w = ctx.measureText(shown).width;
    f.texts.push({ d, x, y: y - fontPx / 2 - 1, w, h: fontPx + 2 });
    return w + (x - px0);
  };
  // Lines the box holds below its title, above the bar.
  const step = yFig - yTitle;
  const linesBelow = Math.max(0, Math.floor((barY - smallPx / 2 - yTitle) / step + 1e-6));
  /** The title on one line, or on two where one would cut it and a line is spare;
   * returns the line the next text goes on. */
  const putTitle = (title: string, spare: number): number => {
    ctx.font = `600 ${titlePx}px ${theme.font}`;
    ctx.fillStyle = theme.fg;
    const rows = titleLines(title, room, spare, (t) => ctx.measureText(t).width);
    rows.forEach((row, j) => put(row, yTitle + j * step, bx0, room, titlePx));
    return yTitle + rows.length * step;
  };
  if (agg) {
    const [title, figures] = aggregateText(agg);
    const yNext = putTitle(title, linesBelow - 1);
    ctx.font = `${smallPx}px ${theme.font}`;
    ctx.fillStyle = theme.muted;
    // The figures take the lines the title left (forks, compactions, errors, output).
    const left = Math.max(1, Math.floor((barY - smallPx / 2 - yNext) / step + 1e-6) + 1);
    wrapLines(figures, room, left, (t) => ctx.measureText(t).width).forEach((row, j) => put(row, yNext + j * step, bx0, room, smallPx));
    return;
  }
  if (!s) return;
  const { cols } = f.scene;
  const lines = f.marks.lines;
  // 1: the first prompt (or what the run is when it has none)
  let head = `${fmtCount(s.size)} entries`;
  if (s.compactions && cols.kind[s.head] === Kind.Compaction) head = lines?.get(s.head) ?? "compaction";
  else if (s.firstUser >= 0) {
    const line = lines?.get(s.firstUser);
    if (line === undefined) f.wantLines.push(s.firstUser);
    else if (line) head = line;
  }
  if (cols.kind[s.head] === Kind.Compaction && lines && !lines.has(s.head)) f.wantLines.push(s.head);
  // The marks (label, errors, compactions) keep their line before the title takes two.
  const more = s.compactions - (cols.kind[s.head] === Kind.Compaction ? 1 : 0);
  const hasMarks = s.firstLabel >= 0 || s.errors > 0 || more > 0;
  const yFigs = putTitle(head, linesBelow - 1 - (hasMarks ? 1 : 0));
  // 2: size, time span, tokens
  ctx.font = `${smallPx}px ${theme.font}`;
  ctx.fillStyle = theme.muted;
  const span = s.t1 > s.t0 ? ` · ${fmtDuration(s.t1 - s.t0)}` : "";
  const out = s.output ? ` · ${fmtCount(s.output)} output` : "";
  put(`${fmtCount(s.size)} entries${span} · peak ${fmtCount(s.tokens)} tokens${out}`, yFigs, bx0, room, smallPx);
  // 3: marks: label, errors, compactions; in the box when it is tall enough, else
  // the label as a tag under the box (in the gap before the next level).
  const yMarks = yFigs + (yMarks0 - yFig);
  const inside = yMarks + smallPx / 2 <= barY;
  ctx.font = `600 ${smallPx}px ${theme.font}`;
  if (!inside) {
    if (s.firstLabel >= 0) f.labelUnder.push([d, `${truncate(cols.labels.get(s.firstLabel) ?? "", 60)}${s.labels > 1 ? ` +${s.labels - 1}` : ""}`]);
    return;
  }
  let mx = bx0;
  const mark = (text: string, color: string): void => {
    ctx.fillStyle = color;
    const w = put(text, yMarks, mx, bx0 + room - mx, smallPx);
    if (w) mx += w + 8;
  };
  if (s.firstLabel >= 0) {
    const r = smallPx * 0.35;
    ctx.beginPath();
    shapePath(ctx, "tag", mx + r * 1.2, yMarks, r);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    mx += r * 3;
    mark(`${truncate(cols.labels.get(s.firstLabel) ?? "", 60)}${s.labels > 1 ? ` +${s.labels - 1}` : ""}`, COLORS.label);
  }
  if (s.errors) mark(`✗ ${s.errors} error${s.errors > 1 ? "s" : ""}`, COLORS.error);
  if (more > 0) mark(`✂ ${more} more compaction${more > 1 ? "s" : ""}`, COLORS.compaction);
}

/** Whole numbers with thousands separators ("2,300"). */
const whole = (n: number): string => Math.round(n).toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`): string => `${whole(n)} ${n === 1 ? one : many}`;
/** Token counts in three figures at most ("410k", "1.2M"). */
const tokens = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M` : fmtCount(n));

/** The two lines of a box that stands for several runs: what it is and how big, then
 * what happened in it (forks, compactions, errors). */
export function aggregateText(a: AggregateInfo): [string, string] {
  const marks = [a.compactions ? `✂ ${plural(a.compactions, "compaction")}` : "", a.errors ? `✗ ${plural(a.errors, "error")}` : ""];
  const out = a.output ? `${tokens(a.output)} output` : "";
  const fig = (...parts: string[]): string => [...parts, ...marks, out].filter(Boolean).join(" · ");
  if (a.kind === "span") return [`entries ${whole(a.from)}-${whole(a.to)} · peak ${tokens(a.tokens)} tokens`, fig(plural(a.forks, "fork"))];
  if (a.kind === "roots") return [`▸ ${plural(a.subtrees, "root")} · ${plural(a.entries, "entry", "entries")}`, fig(plural(a.branches, "branch", "branches"), `peak ${tokens(a.tokens)} tokens`)];
  return [`▸ ${plural(a.branches, "branch", "branches")} · ${plural(a.entries, "entry", "entries")}`, fig(`peak ${tokens(a.tokens)} tokens`)];
}

/** Labels of boxes too short to hold them: a tag centred under the box. */
export function drawLabelsUnderBoxes(f: Frame): void {
  const { ctx, theme, segH } = f;
  ctx.font = `600 11px ${theme.font}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (const [d, text] of f.labelUnder) {
    const shown = fitText(ctx, text, f.boxW(d) - 10);
    if (!shown) continue;
    const w = ctx.measureText(shown).width + 10;
    const x = f.sx(d) - w / 2;
    const y = f.sy(d) + segH / 2 + 3;
    if (collides(f, { x, y, w, h: 16 }) || !onStage(f, x + 5, y + 8.5, 13) || x + w > f.width) continue;
    ctx.beginPath();
    roundRect(ctx, x, y, w, 16, 4);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    ctx.fillStyle = "#ffffff";
    ctx.fillText(shown, x + 5, y + 8.5);
    f.texts.push({ d, x: x + 5, y: y + 1.5, w: w - 10, h: 13 });
    f.occupied.push({ d, x, y, w, h: 16 });
  }
}
