// Viewport maths in pixels: the zoom and offset that fit a laid-out box on screen.
// Pure (no DOM, no d3): the view turns the result into a d3-zoom transform.

export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export interface Fit {
  /** scale */
  k: number;
  /** translation in screen pixels */
  x: number;
  y: number;
}

/** Scale and offset that centre ``box`` (grown by ``marginW`` x ``marginH`` for node
 * extents) in a ``width`` x ``height`` screen with a 30 px padding each side, never
 * zoomed in past 1.5. A tiny screen counts as 50 px so the maths stays finite. */
export function fitBox(box: Bounds, marginW: number, marginH: number, width: number, height: number): Fit {
  const pad = 60;
  const w = box.maxX - box.minX + marginW;
  const h = box.maxY - box.minY + marginH;
  const W = Math.max(width, 50);
  const H = Math.max(height, 50);
  const k = Math.min((W - pad) / Math.max(w, 1), (H - pad) / Math.max(h, 1), 1.5);
  const cx = (box.minX + box.maxX) / 2;
  const cy = (box.minY + box.maxY) / 2;
  return { k, x: W / 2 - cx * k, y: H / 2 - cy * k };
}
