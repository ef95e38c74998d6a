/**
 * Canvas drawing of the commit-graph tree view. Lanes keep a fixed pixel pitch (zoom only
 * changes how far apart rows are), so branches stay apart at any zoom; only the rows on
 * screen are visited, so a frame costs the same at 1k and 100k entries.
 */

import { COLORS, Flag, KIND_STYLES, Kind } from "../model/constants";
import { eachSpanIn, textRows, type LaneScene } from "./lanescene";
import { fitText, fmtCount, roundRect, shapePath, truncate, type DrawStats, type Marks, type Theme, type Transform } from "../ui/canvas";
import type { SegmentInfo } from "../model/display";

/** How a problem kind reads on its node's tag. */
const PROBLEM_WORDS: Record<string, string> = {
  orphan: "orphan: parent missing",
  cycle: "cycle cut here",
  self_parent: "own parent",
  duplicate_id: "duplicate id",
};

/** Row pitch on screen (px) from which every row gets its text. */
export const ALL_TEXT_FROM_PX = 17;
/** Node radius cap as a share of the row pitch. */
const NODE_SHARE = 0.36;
/** Pixels between the last lane and the left of the stage. */
export const LANE_LEFT = 18;
/** Half the height of a row's tallest text (a 16-px tag): rows whose text would not fit
 * whole between the stage's edges draw none. */
export const TEXT_HALF = 8;
/** Room kept at the right for the overview strip, so no text runs under it. */
const MINIMAP_ROOM = 28;

/** A text box drawn on the canvas (page tests check none overlap). */
export interface TextBox {
  row: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Screen position of row r's node and text start (lanes are in pixels, rows scale). */
export function laneScreen(s: LaneScene, t: Transform, d: number): [number, number] {
  return [s.layout.x[d] + t.x, s.layout.y[d] * t.k + t.y];
}

export function nodeRadius(kind: number, rowPx: number): number {
  return Math.max(Math.min(KIND_STYLES[kind].r, rowPx * NODE_SHARE), 1.25);
}

export interface LaneDrawStats extends DrawStats {
  texts: TextBox[];
  /** Rows on screen that a reader must be able to name: forks, leaves, compactions and
   * labelled entries (page tests check each has its text). */
  landmarks: number[];
}

/** What a folded row says: how many entries and tool calls it holds, and the most
 * context it reached (its largest turn total: totals are not added, see ``peakTokens``). */
export function foldText(s: SegmentInfo): string {
  const parts = [`${fmtCount(s.size)} entries`];
  if (s.tools) parts.push(`${fmtCount(s.tools)} tool call${s.tools === 1 ? "" : "s"}`);
  if (s.tokens) parts.push(`peak ${fmtCount(s.tokens)} tokens`);
  if (s.output) parts.push(`${fmtCount(s.output)} output tokens`);
  return parts.join(" · ");
}

export function drawLanes(
  ctx: CanvasRenderingContext2D,
  s: LaneScene,
  t: Transform,
  width: number,
  height: number,
  dpr: number,
  theme: Theme,
  marks: Marks,
): LaneDrawStats {
  const t0 = performance.now();
  const { cols, tree, disp, layout } = s;
  const m = disp.m;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, width, height);
  const texts: TextBox[] = [];
  const landmarks: number[] = [];
  if (m === 0) return { nodes: 0, edges: 0, ms: performance.now() - t0, texts, landmarks };

  const dy = layout.dy;
  const rowPx = dy * t.k;
  const r0 = Math.max(0, Math.floor((-t.y) / rowPx) - 1);
  const r1 = Math.min(m - 1, Math.ceil((height - t.y) / rowPx) + 1);
  const X = (d: number): number => layout.x[d] + t.x;
  const Yr = (r: number): number => r * rowPx + t.y;
  const laneX = (l: number): number => l * layout.dx + t.x;
  const half = rowPx / 2;

  // Compaction rows: a soft band across the row; context cuts: a dashed rule above the
  // first kept entry, across its lane and the text column.
  ctx.fillStyle = COLORS.compaction;
  ctx.globalAlpha = 0.08;
  for (const r of s.compactionRow) {
    if (r < r0 || r > r1) continue;
    ctx.fillRect(0, Yr(r) - half, width, rowPx);
  }
  ctx.globalAlpha = 1;

  // A second root (an orphan, another conversation) starts below a rule across the
  // stage, so it does not read as the end of the branch above it.
  ctx.beginPath();
  for (let r = Math.max(r0, 1); r <= r1; r++) {
    if (disp.dparent[layout.byRow[r]] >= 0) continue;
    ctx.moveTo(0, Math.round(Yr(r) - half) + 0.5);
    ctx.lineTo(width, Math.round(Yr(r) - half) + 0.5);
  }
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.setLineDash([6, 4]);
  ctx.stroke();
  ctx.setLineDash([]);

  // Lane lines: side branches thin, the active path thick, on top.
  let nEdges = 0;
  const lines = (active: number): void => {
    ctx.beginPath();
    eachSpanIn(s, r0, r1, (l, a, b, act) => {
      if (act !== active) return;
      const x = laneX(l);
      ctx.moveTo(x, Math.max(Yr(a), -4));
      ctx.lineTo(x, Math.min(Yr(b), height + 4));
      nEdges++;
    });
    // Branch-offs: from the parent's lane, just above the child's row, into the child's lane.
    for (let r = r0; r <= r1; r++) {
      const d = layout.byRow[r];
      const p = disp.dparent[d];
      if (p < 0 || layout.lane[p] === layout.lane[d]) continue;
      const act = tree.onActive[disp.entry[d]] && tree.onActive[disp.entry[p]] ? 1 : 0;
      if (act !== active) continue;
      const xp = X(p);
      const xc = X(d);
      const yc = Yr(r);
      const yTop = Math.max(Yr(layout.row[p]), yc - rowPx);
      ctx.moveTo(xp, yTop);
      ctx.bezierCurveTo(xp, yc - half * 0.2, xc, yc - half, xc, yc);
      nEdges++;
    }
  };
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  lines(0);
  ctx.strokeStyle = theme.edge;
  ctx.lineWidth = 1.5;
  ctx.stroke();
  lines(1);
  ctx.strokeStyle = theme.active;
  ctx.lineWidth = 2.5;
  ctx.stroke();

  // Search hits: halos under the nodes.
  if (marks.hits) {
    ctx.beginPath();
    const hits = marks.hits;
    const holdsHit = (d: number): boolean => {
      const run = disp.isSeg[d] ? disp.folds.get(disp.entry[d]) : undefined;
      if (!run) return hits[disp.entry[d]] === 1;
      for (let v = run.tail, steps = 0; steps < run.size && v >= 0; v = tree.parent[v], steps++) if (hits[v]) return true;
      return false;
    };
    for (let r = r0; r <= r1; r++) {
      const d = layout.byRow[r];
      if (!holdsHit(d)) continue;
      const rad = nodeRadius(cols.kind[disp.entry[d]], rowPx) + 4;
      ctx.moveTo(X(d) + rad, Yr(r));
      ctx.arc(X(d), Yr(r), rad, 0, Math.PI * 2);
    }
    ctx.fillStyle = COLORS.search;
    ctx.globalAlpha = 0.6;
    ctx.fill();
    ctx.globalAlpha = 1;
  }

  // Nodes: rows dealt out by kind in one pass, then one path per kind. Where rows are
  // under a pixel apart, a lane's pixel row is drawn once per kind (the rest would land
  // on the same pixels). Failed entries get a red ring.
  let nNodes = 0;
  const errors: number[] = [];
  const byKind: number[][] = KIND_STYLES.map(() => []);
  const dense = rowPx < 1;
  const lastPixel = new Map<number, number>(); // (lane, kind) -> last pixel row drawn
  const folded: number[] = [];
  for (let r = r0; r <= r1; r++) {
    const d = layout.byRow[r];
    const i = disp.entry[d];
    if (disp.isSeg[d]) {
      folded.push(r);
      continue;
    }
    const kind = cols.kind[i];
    if (cols.flags[i] & Flag.Error) errors.push(r);
    if (dense) {
      const key = layout.lane[d] * 32 + kind;
      const px = Math.round(Yr(r));
      if (lastPixel.get(key) === px) continue;
      lastPixel.set(key, px);
    }
    (byKind[kind] ?? byKind[byKind.length - 1]).push(r);
  }
  for (let kind = 0; kind < KIND_STYLES.length; kind++) {
    const rows = byKind[kind];
    if (!rows.length) continue;
    const st = KIND_STYLES[kind];
    const rad = nodeRadius(kind, rowPx);
    ctx.beginPath();
    for (const r of rows) {
      const d = layout.byRow[r];
      if (rad < 2.2) ctx.rect(X(d) - rad, Yr(r) - rad, 2 * rad, 2 * rad);
      else shapePath(ctx, st.shape, X(d), Yr(r), rad);
    }
    nNodes += rows.length;
    ctx.fillStyle = st.color;
    ctx.fill();
  }
  // Folded rows: a hollow pill on the lane, as tall as a node row allows.
  if (folded.length) {
    const ph = Math.max(Math.min(rowPx * 0.62, 14), 4);
    ctx.beginPath();
    for (const r of folded) {
      const d = layout.byRow[r];
      roundRect(ctx, X(d) - 4, Yr(r) - ph / 2, 8, ph, 4);
    }
    nNodes += folded.length;
    ctx.fillStyle = theme.bg;
    ctx.fill();
    ctx.strokeStyle = theme.muted;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  if (errors.length && nodeRadius(Kind.User, rowPx) >= 2.2) {
    ctx.beginPath();
    for (const r of errors) {
      const d = layout.byRow[r];
      const rad = nodeRadius(cols.kind[disp.entry[d]], rowPx) + 2;
      ctx.moveTo(X(d) + rad, Yr(r));
      ctx.arc(X(d), Yr(r), rad, 0, Math.PI * 2);
    }
    ctx.strokeStyle = COLORS.error;
    ctx.lineWidth = 1.75;
    ctx.stroke();
  }

  // Context cuts: a dashed rule above the first kept entry, across its lane and text.
  if (s.cutRow.length && rowPx >= 8) {
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = COLORS.compaction;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (const r of s.cutRow) {
      if (r < r0 || r > r1) continue;
      const d = layout.byRow[r];
      const y = Yr(r) - half;
      // across the kept entry's lane only: the text column stays clear
      ctx.moveTo(X(d) - 8, y);
      ctx.lineTo(X(d) + 8, y);
    }
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // Text: every row when rows are far enough apart, else the landmarks.
  const rows = textRows(s, r0, r1, rowPx, ALL_TEXT_FROM_PX);
  const missing: number[] = [];
  const fontPx = 12;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (const r of rows) {
    const d = layout.byRow[r];
    const i = disp.entry[d];
    const y = Yr(r);
    // A text is drawn whole or not at all: none is cut by the stage's top or bottom.
    if (y - TEXT_HALF < 0 || y + TEXT_HALF > height) continue;
    let x = layout.textX[r] + t.x;
    const right = width - 8 - MINIMAP_ROOM;
    const nKids = disp.childStart[d + 1] - disp.childStart[d];
    const fold = disp.isSeg[d] ? disp.folds.get(i) : undefined;
    if (!fold && y >= 0 && y <= height && (nKids !== 1 || cols.kind[i] === Kind.Compaction || cols.labels.has(i))) landmarks.push(r);
    if (fold) {
      ctx.font = `italic ${fontPx}px ${theme.font}`;
      ctx.fillStyle = theme.muted;
      const shown = fitText(ctx, s.foldLabels.get(i) ?? foldText(fold), right - x);
      if (!shown) continue;
      ctx.fillText(shown, x, y + 0.5);
      texts.push({ row: r, x, y: y - fontPx / 2 - 1, w: ctx.measureText(shown).width, h: fontPx + 2 });
      continue;
    }
    const label = cols.labels.get(i);
    if (label) {
      ctx.font = `600 11px ${theme.font}`;
      const tag = truncate(label, 28);
      const w = Math.min(ctx.measureText(tag).width + 10, right - x);
      if (w > 24) {
        ctx.beginPath();
        roundRect(ctx, x, y - 8, w, 16, 4);
        ctx.fillStyle = COLORS.label;
        ctx.fill();
        ctx.fillStyle = "#ffffff";
        ctx.fillText(fitText(ctx, tag, w - 10), x + 5, y + 0.5);
        texts.push({ row: r, x, y: y - 8, w, h: 16 });
        x += w + 6;
      }
    }
    const problem = cols.problemAt.get(i);
    if (problem) {
      ctx.font = `600 11px ${theme.font}`;
      const tag = `⚠ ${PROBLEM_WORDS[problem] ?? problem.replace(/_/g, " ")}`;
      const w = Math.min(ctx.measureText(tag).width + 10, right - x);
      if (w > 24) {
        ctx.beginPath();
        roundRect(ctx, x, y - 8, w, 16, 4);
        ctx.fillStyle = COLORS.problem;
        ctx.fill();
        ctx.fillStyle = "#ffffff";
        ctx.fillText(fitText(ctx, tag, w - 10), x + 5, y + 0.5);
        texts.push({ row: r, x, y: y - 8, w, h: 16 });
        x += w + 6;
      }
    }
    const line = marks.lines?.get(i);
    if (line === undefined) {
      missing.push(i);
      continue;
    }
    if (!line) continue;
    const room = right - x;
    if (room < 30) continue;
    const onActive = tree.onActive[i] === 1;
    ctx.font = `${fontPx}px ${theme.font}`;
    ctx.fillStyle = onActive ? theme.fg : theme.muted;
    const shown = fitText(ctx, line, room);
    if (!shown) continue;
    ctx.fillText(shown, x, y + 0.5);
    texts.push({ row: r, x, y: y - fontPx / 2 - 1, w: ctx.measureText(shown).width, h: fontPx + 2 });
  }

  // Rings: active leaf (dashed), current hit, hover, selection.
  const ring = (entry: number, color: string, lw: number, extra: number, dash?: number[]): void => {
    if (entry < 0) return;
    const d = disp.nodeOf[entry];
    if (d < 0) return;
    const r = layout.row[d];
    if (r < r0 || r > r1) return;
    ctx.beginPath();
    ctx.arc(X(d), Yr(r), nodeRadius(cols.kind[entry], rowPx) + extra, 0, Math.PI * 2);
    ctx.strokeStyle = color;
    ctx.lineWidth = lw;
    if (dash) ctx.setLineDash(dash);
    ctx.stroke();
    if (dash) ctx.setLineDash([]);
  };
  ring(tree.activeLeaf, theme.active, 1.5, 3.5, [3, 2]);
  if (marks.currentHit >= 0) ring(marks.currentHit, COLORS.search, 2.5, 5);
  if (marks.hover >= 0 && marks.hover < m) ring(disp.entry[marks.hover], theme.muted, 1.5, 3);
  if (marks.selected >= 0) {
    const d = disp.nodeOf[marks.selected];
    if (d >= 0) {
      const r = layout.row[d];
      if (r >= r0 && r <= r1) {
        // The selected row is highlighted across the text too, under everything drawn later.
        ctx.globalAlpha = 0.14;
        ctx.fillStyle = theme.accent;
        ctx.fillRect(X(d) - 10, Yr(r) - Math.max(half, 6), width, Math.max(rowPx, 12));
        ctx.globalAlpha = 1;
      }
    }
    ring(marks.selected, theme.accent, 3, 4);
  }
  return { nodes: nNodes, edges: nEdges, ms: performance.now() - t0, missingLines: missing, texts, landmarks };
}
