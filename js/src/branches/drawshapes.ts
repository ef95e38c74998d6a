/** The Branches drawing's passes under the boxes: far-away nodes as pixels, compaction
 * bands, edges, search halos and node shapes. */

import { COLORS, KIND_COUNT, KIND_STYLES, Flag } from "../model/constants";
import { cssColorToHex, rgba, roundRect, screenRadius, shapePath } from "../ui/canvas";
import { RASTER_BELOW, type Frame } from "./frame";
import { boxHasHit } from "./drawbox";

/** Far away: nodes are a few pixels; write them straight into the image, then draw on top. */
export function drawRasterNodes(f: Frame): void {
  const { ctx, scene, width, height, dpr, theme } = f;
  const { cols, disp } = scene;
  const W = Math.max(1, Math.round(width * dpr));
  const H = Math.max(1, Math.round(height * dpr));
  const img = ctx.createImageData(W, H);
  const px32 = new Uint32Array(img.data.buffer);
  px32.fill(rgba(cssColorToHex(ctx, theme.bg)));
  const size = Math.max(1, Math.round(2 * dpr));
  const put = (px: number, py: number, color: number, sz: number): void => {
    const cx = Math.round(px * dpr - sz / 2);
    const cy = Math.round(py * dpr - sz / 2);
    for (let yy = Math.max(0, cy); yy < Math.min(H, cy + sz); yy++) {
      const row = yy * W;
      for (let xx = Math.max(0, cx); xx < Math.min(W, cx + sz); xx++) px32[row + xx] = color;
    }
  };
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const color = rgba(KIND_STYLES[kind].color);
    f.eachInView(bucket, (d, px, py) => {
      put(px, py, color, size);
      f.nodes++;
      if (cols.flags[disp.entry[d]] & Flag.Error) f.errNodes.push(d);
    });
  }
  const err = rgba(COLORS.error);
  for (const d of f.errNodes) put(f.sx(d), f.sy(d), err, size + Math.max(1, Math.round(dpr)));
  ctx.putImageData(img, 0, 0);
}

/** Compaction kept spans (translucent bands), along the same elbows as the edges. */
export function drawCompactionBands(f: Frame): void {
  const { ctx, scene, k, height, margin, halfDy, sx, sy } = f;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.strokeStyle = COLORS.compaction;
  ctx.globalAlpha = f.raster ? 0.3 : 0.16;
  ctx.lineWidth = Math.max(16 * k, 5);
  ctx.beginPath();
  for (const c of scene.compactions) {
    for (let j = 1; j < c.span.length; j++) {
      const a = c.span[j - 1];
      const b = c.span[j];
      const x1 = sx(b);
      const y1 = sy(b);
      const x2 = sx(a);
      const y2 = sy(a);
      if (Math.max(y1, y2) < -margin || Math.min(y1, y2) > height + margin) continue;
      ctx.moveTo(x2, y2);
      if (x1 !== x2) {
        const ym = y2 - Math.min(halfDy, (y2 - y1) / 2);
        ctx.lineTo(x2, ym);
        ctx.lineTo(x1, ym);
      }
      ctx.lineTo(x1, y1);
    }
    if (c.span.length === 1) {
      const d = c.span[0];
      ctx.moveTo(sx(d), sy(d));
      ctx.lineTo(sx(d), sy(d) + 0.01);
    }
  }
  ctx.stroke();
  ctx.globalAlpha = 1;
}

/** The path of the edges off (0) or on (1) the active path: merged vertical runs, then
 * elbows. */
export function edgePath(f: Frame, active: number): void {
  const { ctx, t, k, width, height, margin, halfDy, sx, sy } = f;
  const { edges } = f.scene;
  ctx.beginPath();
  const { runX, runY0, runY1, runActive } = edges;
  for (let r = 0; r < runX.length; r++) {
    if (runActive[r] !== active) continue;
    const x = runX[r] * k + t.x;
    if (x < -margin || x > width + margin) continue;
    const y0 = runY0[r] * k + t.y;
    const y1 = runY1[r] * k + t.y;
    if (y1 < -margin || y0 > height + margin) continue;
    if (f.raster && !active && y1 - y0 < 1.5) continue;
    ctx.moveTo(x, Math.max(y0, -margin));
    ctx.lineTo(x, Math.min(y1, height + margin));
    f.edges++;
  }
  const { elbowParent, elbowChild, elbowActive } = edges;
  for (let j = 0; j < elbowParent.length; j++) {
    if (elbowActive[j] !== active) continue;
    const p = elbowParent[j];
    const d = elbowChild[j];
    const x1 = sx(p);
    const y1 = sy(p);
    const x2 = sx(d);
    const y2 = sy(d);
    if (Math.max(x1, x2) < -margin || Math.min(x1, x2) > width + margin) continue;
    if (y2 < -margin || y1 > height + margin) continue;
    const ym = y2 - Math.min(halfDy, (y2 - y1) / 2);
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1, ym);
    ctx.lineTo(x2, ym);
    ctx.lineTo(x2, y2);
    f.edges++;
  }
}

/** Edges: the active path on top, thicker. */
export function drawEdges(f: Frame): void {
  const { ctx, k, theme } = f;
  ctx.lineJoin = "round";
  ctx.lineCap = "butt";
  edgePath(f, 0);
  ctx.strokeStyle = theme.edge;
  ctx.lineWidth = Math.min(Math.max(1.5 * k, 0.75), 2);
  ctx.stroke();
  edgePath(f, 1);
  ctx.strokeStyle = theme.active;
  ctx.lineWidth = Math.min(Math.max(3 * k, 1.5), 3.5);
  ctx.stroke();
}

/** Search hits: halos under the nodes (over them when far away), and an outline around
 * each box that holds a hit. */
export function drawHitHalos(f: Frame, hits: Uint8Array): void {
  const { ctx, scene, k, raster, segH, boxW } = f;
  const { disp, tree } = scene;
  ctx.beginPath();
  const halo = (px: number, py: number, r: number): void => {
    ctx.moveTo(px + r, py);
    ctx.arc(px, py, r, 0, Math.PI * 2);
  };
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const r = screenRadius(kind, k) + (raster ? 2.5 : 5);
    f.eachInView(bucket, (d, px, py) => {
      if (hits[disp.entry[d]]) halo(px, py, r);
    });
  }
  ctx.fillStyle = COLORS.search;
  ctx.globalAlpha = raster ? 0.8 : 0.55;
  ctx.fill();
  ctx.globalAlpha = 1;
  // A box that holds a hit gets an outline of its own shape: a disc as wide as the
  // box covered its neighbours.
  const segBucket = scene.buckets[KIND_COUNT];
  if (segBucket && segBucket.nodes.length) {
    ctx.beginPath();
    let hitNodes: Set<number> | undefined;
    if (disp.aggregates.size) {
      hitNodes = new Set<number>();
      for (let i = 0; i < hits.length; i++) if (hits[i]) hitNodes.add(disp.nodeOf[i]);
    }
    f.eachInView(segBucket, (d, px, py) => {
      if (boxHasHit(disp, tree, disp.entry[d], hits, hitNodes)) roundRect(ctx, px - boxW(d) / 2 - 4, py - segH / 2 - 4, boxW(d) + 8, segH + 8, 9);
    });
    ctx.strokeStyle = COLORS.search;
    ctx.lineWidth = 4;
    ctx.stroke();
  }
}

/** Near enough: nodes as shapes, one path per style, then a ring around each error. */
export function drawNodeShapes(f: Frame): void {
  const { ctx, scene, k } = f;
  const { cols, disp } = scene;
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const bucket = scene.buckets[kind];
    if (!bucket || !bucket.nodes.length) continue;
    const st = KIND_STYLES[kind];
    const r = screenRadius(kind, k);
    ctx.beginPath();
    const small = r < RASTER_BELOW;
    f.eachInView(bucket, (d, px, py) => {
      if (small) ctx.rect(px - r, py - r, 2 * r, 2 * r);
      else shapePath(ctx, st.shape, px, py, r);
      f.nodes++;
      if (cols.flags[disp.entry[d]] & Flag.Error) f.errNodes.push(d);
    });
    ctx.fillStyle = st.color;
    ctx.fill();
  }
  if (f.errNodes.length) {
    ctx.beginPath();
    for (const d of f.errNodes) {
      const r = screenRadius(cols.kind[disp.entry[d]], k) + 2.5;
      const px = f.sx(d);
      const py = f.sy(d);
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, Math.PI * 2);
    }
    ctx.strokeStyle = COLORS.error;
    ctx.lineWidth = 2;
    ctx.stroke();
  }
}
