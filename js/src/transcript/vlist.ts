// The maths of a virtual list: rows of varying height, most of them never drawn. Pure (no
// DOM), so it is testable: the Transcript keeps one and asks it which rows to draw, where
// they go, and how far to scroll so the row being read stays put when heights change.

/** Where reading is: a row and how far into it (pixels) the top of the screen is. */
export interface Anchor {
  row: number;
  offset: number;
}

/** Heights of ``n`` rows: an estimate for each until it is drawn, then what it measured.
 * Tops are prefix sums, rebuilt lazily from the first row whose height changed, so a
 * measure of the rows on screen costs one pass over the rows below them at most. */
export class RowHeights {
  readonly n: number;
  private h: Float64Array;
  private topOf: Float64Array;
  private measured: Uint8Array;
  private dirtyFrom = 0;

  constructor(estimates: ArrayLike<number>) {
    this.n = estimates.length;
    this.h = Float64Array.from(estimates, (v) => (Number.isFinite(v) && v > 0 ? v : 1));
    this.topOf = new Float64Array(this.n + 1);
    this.measured = new Uint8Array(this.n);
  }

  height(row: number): number {
    return this.h[row];
  }

  isMeasured(row: number): boolean {
    return this.measured[row] === 1;
  }

  /** Take the measured heights of the first ``count`` rows of ``from`` (the same rows,
   * before more were appended). */
  carry(from: RowHeights, count: number): void {
    const k = Math.min(count, from.n, this.n);
    for (let r = 0; r < k; r++) if (from.isMeasured(r)) this.set(r, from.height(r));
  }

  /** Record a measured height; returns the change (0 when it was right). */
  set(row: number, height: number): number {
    if (row < 0 || row >= this.n || !(height >= 0)) return 0;
    this.measured[row] = 1;
    const delta = height - this.h[row];
    if (delta === 0) return 0;
    this.h[row] = height;
    if (row < this.dirtyFrom) this.dirtyFrom = row;
    return delta;
  }

  private settle(): void {
    if (this.dirtyFrom > this.n) return;
    const t = this.topOf;
    for (let i = this.dirtyFrom; i < this.n; i++) t[i + 1] = t[i] + this.h[i];
    this.dirtyFrom = this.n + 1;
  }

  /** The top of ``row`` (``n`` gives the total height). */
  top(row: number): number {
    this.settle();
    return this.topOf[Math.max(0, Math.min(this.n, row))];
  }

  get total(): number {
    return this.top(this.n);
  }

  /** The row under ``y`` (clamped to the rows there are; -1 when there are none). */
  rowAt(y: number): number {
    if (!this.n) return -1;
    this.settle();
    const t = this.topOf;
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (t[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Rows to draw for a screen from ``scrollTop`` of ``viewport`` pixels, with ``margin``
   * pixels more on either side: ``[start, end)``. */
  window(scrollTop: number, viewport: number, margin: number): [number, number] {
    if (!this.n) return [0, 0];
    const start = this.rowAt(Math.max(0, scrollTop - margin));
    const last = this.rowAt(scrollTop + viewport + margin);
    return [start, last + 1];
  }

  /** The row at the top of the screen and how far into it the screen starts. */
  anchor(scrollTop: number): Anchor {
    const row = this.rowAt(scrollTop);
    return { row, offset: row < 0 ? 0 : scrollTop - this.top(row) };
  }

  /** The scroll position that puts ``a`` back at the top of the screen. */
  scrollFor(a: Anchor): number {
    return a.row < 0 ? 0 : this.top(a.row) + a.offset;
  }

  /** The scroll position that centres ``row`` on a screen of ``viewport`` pixels (its
   * top when it is taller than the screen). */
  centre(row: number, viewport: number): number {
    const h = this.h[row] ?? 0;
    const top = this.top(row);
    return Math.max(0, h >= viewport ? top : top - (viewport - h) / 2);
  }
}

/** The rows of ``[start, end)`` not ``done``, nearest the screen's
 * middle ``mid`` first: what a window still has to ask for. */
export function wanted(start: number, end: number, mid: number, done: (row: number) => boolean): number[] {
  const out: number[] = [];
  for (let r = start; r < end; r++) if (!done(r)) out.push(r);
  return out.sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid) || a - b);
}
