/** Draw a family layout as HTML boxes (one per session) over an SVG of connectors.
 *
 * Grid units from layout.ts become pixels here. Every text from the session files is set
 * with textContent or setAttribute, never parsed as HTML. Boxes are buttons: a click or
 * Enter picks the session. */

import type { FamilyData } from "./data";
import { layoutFamily, type FamilyLayout } from "./layout";

export const LANE_HEIGHT = 56;
export const BOX_HEIGHT = 44;
export const MIN_BOX_WIDTH = 260;
const PAD = 12;
const SVG_NS = "http://www.w3.org/2000/svg";

export interface FamilyView {
  root: HTMLElement;
  layout: FamilyLayout;
  setSelected(key: string | null): void;
  dispose(): void;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function money(cost: number): string {
  return `$${cost.toFixed(cost >= 1 ? 2 : 4)}`;
}

function kindText(kind: string, depth: number | null): string {
  if (kind === "subagent") return depth !== null ? `sub-agent \u00b7 d${depth}` : "sub-agent";
  return kind;
}

export function renderFamily(
  host: HTMLElement,
  data: FamilyData,
  onPick: (key: string) => void,
): FamilyView {
  const layout = layoutFamily(data.sessions);
  const root = el("div", "pnb-fam");
  const t = data.totals;
  const summary = `${t.sessions} sessions \u00b7 ${t.uniqueEntries.toLocaleString("en-US")} unique entries \u00b7 ${t.tokens.toLocaleString("en-US")} tokens \u00b7 ${money(t.cost)}`;
  const head = el("div", "pnb-fam-head", summary);
  if (data.problems > 0) {
    head.append(el("span", "pnb-fam-problems", ` \u00b7 ${data.problems} problems`));
  }
  root.append(head);

  const available = Math.max(host.clientWidth || 0, 640) - 2 * PAD;
  const scale = Math.max(4, (available - MIN_BOX_WIDTH) / layout.width);
  const px = (x: number): number => PAD + x * scale;
  const stage = el("div", "pnb-fam-stage");
  const height = layout.rows * LANE_HEIGHT + PAD;
  const width = Math.max(
    available + 2 * PAD,
    ...layout.lanes.map((l) => px(l.x0) + Math.max(MIN_BOX_WIDTH, (l.x1 - l.x0) * scale) + PAD),
  );
  stage.style.height = `${height}px`;
  stage.style.width = `${width}px`;

  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "pnb-fam-links");
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  for (const link of layout.links) {
    const path = document.createElementNS(SVG_NS, "path");
    const x = px(link.x);
    const y0 = PAD / 2 + link.fromRow * LANE_HEIGHT + BOX_HEIGHT;
    const y1 = PAD / 2 + link.toRow * LANE_HEIGHT + BOX_HEIGHT / 2;
    const lane = layout.lanes[link.toRow];
    path.setAttribute("d", `M${x},${y0} V${y1} H${px(lane.x0)}`);
    path.setAttribute("class", `pnb-fam-link pnb-fam-${link.kind}`);
    const dot = document.createElementNS(SVG_NS, "circle");
    dot.setAttribute("cx", String(x));
    dot.setAttribute("cy", String(y0));
    dot.setAttribute("r", "3.5");
    dot.setAttribute("class", `pnb-fam-point pnb-fam-${link.kind}`);
    svg.append(path, dot);
  }
  stage.append(svg);

  const boxes: HTMLButtonElement[] = [];
  layout.lanes.forEach((lane, row) => {
    const s = data.sessions[row];
    const box = el("button", `pnb-fam-box pnb-fam-${s.kind}`);
    box.type = "button";
    box.dataset.row = String(row);
    box.dataset.session = s.key;
    box.dataset.kind = s.kind;
    box.style.left = `${px(lane.x0)}px`;
    box.style.top = `${PAD / 2 + row * LANE_HEIGHT}px`;
    box.style.width = `${Math.max(MIN_BOX_WIDTH, (lane.x1 - lane.x0) * scale)}px`;
    box.style.height = `${BOX_HEIGHT}px`;
    box.setAttribute("title", `${s.file}\n${s.label}${s.error ? `\n${s.error}` : ""}`);
    const copied = s.entries - s.newEntries;
    const count = copied > 0 ? `${s.newEntries} new of ${s.entries}` : `${s.entries} entries`;
    const top = el("span", "pnb-fam-top");
    top.append(
      el("span", "pnb-fam-kind", kindText(s.kind, s.rlmDepth)),
      el("span", "pnb-fam-meta", `${count} \u00b7 ${money(s.ownCost)}`),
    );
    box.append(top, el("span", "pnb-fam-label", s.error ? `unreadable: ${s.file}` : s.label));
    box.addEventListener("click", () => onPick(s.key));
    boxes.push(box);
    stage.append(box);
  });
  root.append(stage);
  host.append(root);

  return {
    root,
    layout,
    setSelected(key: string | null): void {
      for (const box of boxes) {
        const on = key !== null && box.dataset.session === key;
        box.classList.toggle("pnb-fam-selected", on);
        box.setAttribute("aria-pressed", on ? "true" : "false");
      }
    },
    dispose(): void {
      root.remove();
    },
  };
}
