/**
 * Long markdown, rendered a piece at a time so that the page never freezes.
 *
 * marked's inline parsing is superlinear on some input (200 kB of `*a*a...` took seconds
 * in one go), and it runs on the main thread. So text is cut into pieces of at most
 * MD_CHUNK chars, at blank lines outside code fences where possible; the panel renders
 * pieces up to a budget at once and the rest one piece per task after "Show all".
 */

export const MD_CHUNK = 4000;
/** chars and milliseconds rendered at once before the rest waits for "Show all" */
export const MD_FIRST_CHARS = 20000;
export const MD_FIRST_MS = 30;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface Cut {
  at: number;
  /** the fence line open at ``at`` (the cut falls inside a code block), else null */
  fence: string | null;
}

/**
 * Where to end the piece that starts at ``start`` (inside ``fence`` if not null): the
 * last blank line outside a code block, else the last line end, else ``max`` chars.
 */
function cutPoint(text: string, start: number, max: number, fence: string | null): Cut {
  const end = start + max;
  let blank: Cut | null = null;
  let lineEnd: Cut | null = null;
  let open = fence;
  let pos = start;
  while (pos < end) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0 || nl >= end) break;
    const line = text.slice(pos, nl);
    if (FENCE.test(line)) open = open === null ? line : null;
    else if (open === null && pos > start && line.trim() === "") blank = { at: pos, fence: null };
    pos = nl + 1;
    lineEnd = { at: pos, fence: open };
  }
  if (blank) return blank;
  if (lineEnd) return lineEnd;
  const code = text.charCodeAt(end - 1);
  const at = code >= 0xd800 && code <= 0xdbff ? end - 1 : end; // never split a surrogate pair
  return { at, fence: open };
}

/**
 * ``text`` in pieces of at most ``max`` chars of it, each renderable on its own: a code
 * block cut in two is closed at the end of one piece and opened again in the next.
 */
export function splitMarkdown(text: string, max = MD_CHUNK): string[] {
  const out: string[] = [];
  let start = 0;
  let fence: string | null = null;
  while (text.length - start > max) {
    const cut = cutPoint(text, start, max, fence);
    let piece = text.slice(start, cut.at);
    if (fence !== null) piece = `${fence}\n${piece}`;
    if (cut.fence !== null) piece += `${piece.endsWith("\n") ? "" : "\n"}${FENCE.exec(cut.fence)![1]}`;
    out.push(piece);
    start = cut.at;
    fence = cut.fence;
  }
  out.push(fence !== null ? `${fence}\n${text.slice(start)}` : text.slice(start));
  return out;
}

/**
 * Render pieces into ``box`` until the budget is spent; returns the index of the first
 * piece not rendered (``pieces.length`` when all are in).
 */
export function renderWithin(
  box: HTMLElement,
  pieces: string[],
  render: (piece: string) => Node,
  maxChars = MD_FIRST_CHARS,
  maxMs = MD_FIRST_MS,
): number {
  const start = performance.now();
  let chars = 0;
  let i = 0;
  while (i < pieces.length) {
    box.append(render(pieces[i]));
    chars += pieces[i].length;
    i++;
    if (chars >= maxChars || performance.now() - start >= maxMs) break;
  }
  return i;
}

/** The remaining pieces, one per task, while ``box`` stays on the page; then ``done``. */
export function renderRest(box: HTMLElement, pieces: string[], from: number, render: (piece: string) => Node, done: () => void): void {
  if (from >= pieces.length || !box.isConnected) {
    done();
    return;
  }
  box.append(render(pieces[from]));
  setTimeout(() => renderRest(box, pieces, from + 1, render, done), 0);
}
