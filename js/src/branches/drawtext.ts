/** The Branches drawing's passes over the boxes: label tags, context cuts, first lines,
 * collapse badges and the rings of the active leaf, hits, hover and selection. */

import { COLORS, KIND_COUNT } from "../model/constants";
import { fitText, fmtCount, roundRect, screenRadius, truncate } from "../ui/canvas";
import { wrapLines } from "./boxtext";
import { onStage, roomRight, type Frame } from "./frame";

/** Labels: tags to the right of entries (first label, "+N" for more), fitted to the
 * room before the next box or text; drawn before first lines, which give way to them. */
export function drawEntryLabels(f: Frame): void {
  const { ctx, scene, k, width, height, theme, sx, sy } = f;
  const { cols, disp } = scene;
  const perNode = new Map<number, { text: string; count: number }>();
  for (const [i, text] of cols.labels) {
    const d = disp.nodeOf[i];
    if (d < 0 || disp.isSeg[d] || !f.inView(sx(d), sy(d))) continue;
    const prev = perNode.get(d);
    if (prev) prev.count++;
    else perNode.set(d, { text, count: 1 });
  }
  ctx.font = `600 11px ${theme.font}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  let drawn = 0;
  for (const [d, { text, count }] of perNode) {
    f.labelEnd.set(d, 0);
    if (drawn > 400) break;
    const px = sx(d) + screenRadius(cols.kind[disp.entry[d]], k) + 10;
    const py = sy(d);
    if (py >= 0 && py <= height) f.landmarks.push(d);
    if (!onStage(f, px + 5, py, 14)) continue;
    const room = Math.min(roomRight(f, px, py - 8, py + 8) - 6, width - px - 8, 260);
    const label = fitText(ctx, truncate(text, 60) + (count > 1 ? ` +${count - 1}` : ""), room - 10);
    if (!label) continue;
    const w = ctx.measureText(label).width + 10;
    ctx.beginPath();
    roundRect(ctx, px, py - 8, w, 16, 4);
    ctx.fillStyle = COLORS.label;
    ctx.fill();
    ctx.fillStyle = "#ffffff";
    ctx.fillText(label, px + 5, py + 0.5);
    f.texts.push({ d, x: px + 5, y: py - 7, w: w - 10, h: 14 });
    f.occupied.push({ d, x: px, y: py - 8, w, h: 16 });
    f.labelEnd.set(d, w + 6);
    drawn++;
  }
}

/** Context cuts: a short dashed line across the edge into the first kept entry, with
 * what was cut beside it where there is room. */
export function drawContextCuts(f: Frame): void {
  const { ctx, scene, k, width, theme, segH, halfDy, sx, sy } = f;
  const { disp } = scene;
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = COLORS.compaction;
  ctx.lineWidth = 2;
  ctx.font = `600 11px ${theme.font}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.beginPath();
  const cuts: [string, number, number, number][] = [];
  for (const c of scene.compactions) {
    const d = c.cutAt;
    const seg = disp.isSeg[d] === 1;
    const px = sx(d);
    const py = sy(d) - (seg ? segH / 2 + Math.min(halfDy - segH / 2, 8 * k) : Math.min(halfDy, 12 * k + 4));
    if (!f.inView(px, py)) continue;
    const w = seg ? f.boxW(d) / 2 + 4 : Math.max(14 * k, 8);
    ctx.moveTo(px - w, py);
    ctx.lineTo(px + w, py);
    if (!seg) cuts.push([`✂ context cut · ${fmtCount(c.tokensBefore)} tokens before`, px + w + 5, py, d]);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = COLORS.compaction;
  for (const [text, x, y, d] of cuts) {
    if (!onStage(f, x, y, 13)) continue;
    const shown = fitText(ctx, text, Math.min(roomRight(f, x, y - 7, y + 7) - 6, width - x - 8));
    if (!shown) continue;
    ctx.fillText(shown, x, y);
    const box = { d, x, y: y - 7, w: ctx.measureText(shown).width, h: 14 };
    f.texts.push(box);
    f.occupied.push(box);
  }
}

/** First lines beside the nodes, in the room before the next node, box or text. Returns
 * the entries in view whose line is not known yet. */
export function drawFirstLines(f: Frame, lines: Map<number, string>): number[] {
  const { ctx, scene, k, width, height, theme } = f;
  const { disp } = scene;
  const missingLines: number[] = [];
  ctx.font = `12px ${theme.font}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillStyle = theme.muted;
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const r = screenRadius(kind, k);
    f.eachInView(bucket, (d, px, py) => {
      if (px > width || py < -10 || py > height + 10) return;
      const i = disp.entry[d];
      const text = lines.get(i);
      if (text === undefined) {
        missingLines.push(i);
        return;
      }
      if (!text) return;
      const x0 = px + r + 10 + (f.labelEnd.get(d) ?? 0);
      if (!onStage(f, x0, py + 0.5, 12)) return;
      const room = Math.min(scene.rightGap[d] * k - (x0 - px) - 14, 460, width - x0 - 8, roomRight(f, x0, py - 7, py + 7) - 8);
      if (room < 36) return;
      const two = twoLines(f, text, x0, py, room);
      const set = two ?? [fitText(ctx, text, room)];
      if (!set[0]) return;
      set.forEach((line, j) => {
        const y = py + (set.length === 2 ? (j === 0 ? -LINE_H / 2 : LINE_H / 2) : 0);
        ctx.fillText(line, x0, y + 0.5);
        const box = { d, x: x0, y: y - 7, w: ctx.measureText(line).width, h: LINE_H };
        f.texts.push(box);
        f.occupied.push(box);
      });
    });
  }
  return missingLines;
}

/** The height of a first line's text box. */
const LINE_H = 14;

/** A first line too long for ``room``, in two lines centred on the node (broken at a
 * word, the second fitted), when the node's row has the height and nothing drawn is in
 * the way; null to draw one fitted line. The whole line is in the hover. */
function twoLines(f: Frame, text: string, x0: number, py: number, room: number): string[] | null {
  const { ctx } = f;
  if (ctx.measureText(text).width <= room || f.halfDy < LINE_H + 1) return null;
  if (!onStage(f, x0, py + 0.5, 2 * LINE_H) || roomRight(f, x0, py - LINE_H, py + LINE_H) - 8 < room) return null;
  const measure = (t: string): number => ctx.measureText(t).width;
  const [first, rest] = wrapLines(text, room, 2, measure);
  if (rest === undefined) return null;
  const second = fitText(ctx, rest, room);
  return second ? [first, second] : null;
}

/** Expand/collapse badges of opened segments (branch view). */
export function drawCollapseBadges(f: Frame): void {
  const { ctx, scene, k, theme } = f;
  const { disp } = scene;
  for (const h of disp.expandedHeads) {
    const d = disp.nodeOf[h];
    if (d < 0) continue;
    const px = f.sx(d) - Math.max(16 * k, 8);
    const py = f.sy(d);
    if (!f.inView(px, py)) continue;
    const r = Math.max(6 * k, 4);
    ctx.beginPath();
    ctx.arc(px, py, r, 0, Math.PI * 2);
    ctx.fillStyle = theme.segFill;
    ctx.fill();
    ctx.strokeStyle = theme.muted;
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(px - r * 0.5, py);
    ctx.lineTo(px + r * 0.5, py);
    ctx.stroke();
  }
}

/** A ring around an entry's node or box (nothing when it is not drawn or out of view). */
export function ring(f: Frame, entryIdx: number, color: string, width: number, extra: number, dash?: number[]): void {
  const { ctx, scene, k, segH } = f;
  const { cols, disp } = scene;
  if (entryIdx < 0) return;
  const d = disp.nodeOf[entryIdx];
  if (d < 0) return;
  const px = f.sx(d);
  const py = f.sy(d);
  if (!f.inView(px, py)) return;
  ctx.beginPath();
  if (disp.isSeg[d]) roundRect(ctx, px - f.boxW(d) / 2 - extra, py - segH / 2 - extra, f.boxW(d) + 2 * extra, segH + 2 * extra, 8);
  else {
    const r = screenRadius(cols.kind[disp.entry[d]], k) + extra;
    ctx.arc(px, py, r, 0, Math.PI * 2);
  }
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  if (dash) ctx.setLineDash(dash);
  ctx.stroke();
  if (dash) ctx.setLineDash([]);
}

/** Active leaf, current hit, hover and selection rings, over everything else. */
export function drawRings(f: Frame): void {
  const { theme, marks } = f;
  const { tree, disp } = f.scene;
  ring(f, tree.activeLeaf, theme.active, 2, 4.5, [3, 2]);
  if (marks.currentHit >= 0) ring(f, marks.currentHit, COLORS.search, 3, 6);
  if (marks.hover >= 0 && marks.hover < disp.m) ring(f, disp.entry[marks.hover], theme.muted, 2, 3.5);
  if (marks.selected >= 0) {
    ring(f, marks.selected, theme.accent, 6, 6);
    ring(f, marks.selected, theme.bg, 1.5, 2.5);
  }
}
