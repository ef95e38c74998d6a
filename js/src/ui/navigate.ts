// Keyboard moves through the drawn tree: parent, child (active path first), siblings.
import { displayChildren, type Display } from "../model/display";
import type { KeyAction } from "./keys";

/** The display node a move reaches from ``cur`` (-1: nothing selected), or -1 for none.
 * From nothing, "parent" goes to the active leaf and "child" to the first root. */
export function moveTarget(
  action: KeyAction,
  disp: Display,
  cur: number,
  onActive: ArrayLike<number>,
  activeLeafNode: number,
): number {
  switch (action) {
    case "parent":
      return cur < 0 ? activeLeafNode : disp.dparent[cur];
    case "child": {
      if (cur < 0) return disp.roots[0] ?? -1;
      const kids = displayChildren(disp, cur);
      if (!kids.length) return -1;
      let next = kids[0];
      for (const c of kids) if (onActive[disp.entry[c]]) next = c;
      return next;
    }
    case "previousSibling":
    case "nextSibling": {
      if (cur < 0) return -1;
      const sib = disp.dparent[cur] >= 0 ? displayChildren(disp, disp.dparent[cur]) : disp.roots;
      const pos = sib.indexOf(cur);
      const nxt = pos + (action === "previousSibling" ? -1 : 1);
      return nxt >= 0 && nxt < sib.length ? sib[nxt] : -1;
    }
    default:
      return -1;
  }
}
