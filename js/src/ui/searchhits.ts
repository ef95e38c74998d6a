// Search hits in row order: which are shown, how the count reads, stepping through them.
// Pure (no DOM): the view keeps the state, these compute it.

export interface OrderedHits {
  /** entries that match and are shown, in the tree's row order */
  list: number[];
  /** entries that match but the current filter hides */
  hidden: number;
}

/** The matching entries (``hits[i]`` set) in ``order``, split into shown and hidden. */
export function orderedHits(
  order: ArrayLike<number>,
  hits: ArrayLike<number>,
  shown: ArrayLike<number | boolean>,
): OrderedHits {
  const list: number[] = [];
  let hidden = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (!hits[i]) continue;
    if (shown[i]) list.push(i);
    else hidden++;
  }
  return { list, hidden };
}

/** "2/5", "–/5" when none is selected, "0 hits"; "(+k hidden)" when the filter hides some. */
export function hitCountText(pos: number, n: number, hidden: number): string {
  let text = n ? `${pos >= 0 ? pos + 1 : "–"}/${n}` : "0 hits";
  if (hidden) text += ` (+${hidden} hidden)`;
  return text;
}

/** The position after a step of ``step`` (wrapping); from none, the first or the last. */
export function nextHitPos(pos: number, step: number, n: number): number {
  return pos < 0 ? (step > 0 ? 0 : n - 1) : (pos + step + n) % n;
}
