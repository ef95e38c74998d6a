/** Tidy-tree layout (d3-hierarchy) of the display graph, top to bottom. */

import { hierarchy, tree as d3tree, type HierarchyNode, type HierarchyPointNode } from "d3-hierarchy";
import type { Display } from "../model/display";
import type { Layout } from "../ui/graphview";

export type { Layout } from "../ui/graphview";

/** What a tidy layout needs of a graph: its nodes' children and its roots. A Display is
 * one; so is the coarse graph the Branches view measures its levels of detail on. */
export type TreeShape = Pick<Display, "m" | "roots" | "childStart" | "childList">;

export const SPACING = {
  tree: { dx: 24, dy: 30 },
  branches: { dx: 280, dy: 96 },
} as const;

/** Lay out the display graph; a forest hangs from an invisible root. ``onMain`` (the
 * active path) makes the main branch alternate sides at its forks: with side branches
 * always first, each fork pushed the main branch half a column over, and a long session
 * drew a diagonal squiggle many screens wide. */
export function layoutDisplay(disp: TreeShape, dx: number, dy: number, onMain?: (d: number) => boolean): Layout {
  const m = disp.m;
  const x = new Float32Array(m);
  const y = new Float32Array(m);
  if (m === 0) return { x, y, minX: 0, maxX: 0, minY: 0, maxY: 0, dx, dy };
  const VIRTUAL = -1;
  const root = buildHierarchy(disp, VIRTUAL, onMain);
  const laid = d3tree<number>()
    .nodeSize([dx, dy])
    // Roots (children of the invisible root) stand apart, so a second root does not read
    // as a branch of the first.
    .separation((a, b) => (a.parent === b.parent ? (a.parent?.data === VIRTUAL ? 2 : 1) : 1.25))(root);
  let minX = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  laid.each((node: HierarchyPointNode<number>) => {
    const d = node.data;
    if (d === VIRTUAL) return;
    const ny = node.y - dy;
    x[d] = node.x;
    y[d] = ny;
    if (node.x < minX) minX = node.x;
    if (node.x > maxX) maxX = node.x;
    if (ny > maxY) maxY = ny;
  });
  return { x, y, minX, maxX, minY: 0, maxY, dx, dy };
}

type NodeCtor = new (data: number) => HierarchyNode<number>;

/**
 * d3's `hierarchy()` sets heights in pre-order, which is quadratic on long chains (a 20k
 * chain takes a second); build the same nodes directly, with heights in linear time.
 */
function buildHierarchy(disp: TreeShape, virtual: number, onMain?: (d: number) => boolean): HierarchyNode<number> {
  const Node = hierarchy<number>(virtual).constructor as NodeCtor;
  const root = new Node(virtual);
  const order: HierarchyNode<number>[] = [root];
  const stack: HierarchyNode<number>[] = [root];
  let forks = 0;
  while (stack.length) {
    const node = stack.pop() as HierarchyNode<number>;
    const d = node.data;
    let list = d === virtual ? disp.roots : disp.childList.subarray(disp.childStart[d], disp.childStart[d + 1]);
    if (!list.length) continue;
    if (onMain && d !== virtual && list.length > 1) {
      const main = list.findIndex(onMain);
      if (main >= 0) {
        // Main branch last at one fork, first at the next: the drifts cancel.
        const rest = Array.from(list).filter((_, j) => j !== main);
        list = Int32Array.from(forks++ % 2 ? [list[main], ...rest] : [...rest, list[main]]);
      }
    }
    const children: HierarchyNode<number>[] = new Array(list.length);
    for (let j = 0; j < list.length; j++) {
      const child = new Node(list[j]);
      (child as { parent: HierarchyNode<number> | null }).parent = node;
      (child as { depth: number }).depth = node.depth + 1;
      children[j] = child;
      order.push(child);
    }
    node.children = children;
    for (let j = children.length - 1; j >= 0; j--) stack.push(children[j]);
  }
  for (let k = order.length - 1; k > 0; k--) {
    const node = order[k];
    const parent = node.parent as HierarchyNode<number>;
    if (parent.height < node.height + 1) (parent as { height: number }).height = node.height + 1;
  }
  return root;
}
