// Keyboard shortcuts: which key does what in the tree. Pure (no DOM), so it is testable
// and the legend's list of keys and the handler cannot drift apart.

export type KeyAction =
  | "parent"
  | "child"
  | "previousSibling"
  | "nextSibling"
  | "toggle"
  | "activeLeaf"
  | "fit"
  | "toggleView"
  | "search"
  | "nextHit"
  | "previousHit"
  | "deselect";

const KEYS: Record<string, KeyAction> = {
  ArrowUp: "parent",
  ArrowDown: "child",
  ArrowLeft: "previousSibling",
  ArrowRight: "nextSibling",
  Enter: "toggle",
  " ": "toggle",
  a: "activeLeaf",
  End: "activeLeaf",
  f: "fit",
  "0": "fit",
  v: "toggleView",
  "/": "search",
  n: "nextHit",
  N: "previousHit",
  Escape: "deselect",
};

/** The action of a ``KeyboardEvent.key``, or null for a key the tree leaves alone. */
export function keyAction(key: string): KeyAction | null {
  return Object.prototype.hasOwnProperty.call(KEYS, key) ? KEYS[key] : null;
}

/** The key of ``ev`` as an action for the view, or null when the key belongs to a field
 * (inputs, and the side panel, which keeps every key but Escape). */
export function viewKeyAction(ev: KeyboardEvent, panel: HTMLElement): KeyAction | null {
  const target = ev.target as HTMLElement | null;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return null;
  if (target && panel.contains(target) && ev.key !== "Escape") return null;
  return keyAction(ev.key);
}
