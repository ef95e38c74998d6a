/** What a Branches box says, set into the lines its height gives: a title wraps onto a
 * second line (at a word, or between the parts of a box's figures) where one line would
 * cut it and the box has a line to spare, so a title ends in "…" only when two lines of
 * the box's width cannot hold it. The whole title is in the hover. */

/** The width of ``text`` as drawn (``ctx.measureText`` in the view; any measure in tests). */
export type Measure = (text: string) => number;

/** ``text`` cut at a word (or at a " · " between parts) into a first line no wider than
 * ``room`` and the rest; null when the first word alone is wider (the caller fits it). */
export function breakLine(text: string, room: number, measure: Measure): [string, string] | null {
  if (measure(text) <= room) return [text, ""];
  // Between the parts of a box's figures where one fits: "entries 1-80" / "peak 9k tokens".
  let part = -1;
  for (let j = text.indexOf(" · "); j > 0; j = text.indexOf(" · ", j + 1)) {
    if (measure(text.slice(0, j)) > room) break;
    part = j;
  }
  if (part > 0) return [text.slice(0, part), text.slice(part + 3)];
  let best = -1;
  for (let j = text.indexOf(" "); j > 0; j = text.indexOf(" ", j + 1)) {
    const head = text.slice(0, j).replace(/ ·$/, "");
    if (measure(head) > room) break;
    best = j;
  }
  if (best < 0) return null;
  const head = text.slice(0, best).replace(/ ·$/, "");
  const rest = text.slice(best + 1).replace(/^· /, "");
  return [head, rest];
}

/** The lines a title takes in a box ``room`` wide with ``spare`` lines beyond its first:
 * one when it fits or no line is spare, else two (the second fitted by the caller). */
export function titleLines(title: string, room: number, spare: number, measure: Measure): string[] {
  if (spare < 1 || measure(title) <= room) return [title];
  const cut = breakLine(title, room, measure);
  return cut && cut[1] ? [cut[0], cut[1]] : [title];
}

/** ``text`` in at most ``lines`` lines of ``room``, broken where ``breakLine`` breaks; the
 * last line holds the rest (fitted by the caller). */
export function wrapLines(text: string, room: number, lines: number, measure: Measure): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest && out.length < lines - 1) {
    const cut = breakLine(rest, room, measure);
    if (!cut) break;
    out.push(cut[0]);
    rest = cut[1];
  }
  if (rest) out.push(rest);
  return out;
}
