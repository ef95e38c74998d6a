// The hover tooltip's state: which node it is for, where the pointer is, showing and hiding.
import { el } from "./dom";
import { tooltipPosition } from "./tipcontent";

export class HoverTip {
  readonly el: HTMLDivElement;
  /** the display node hovered, or -1 */
  d = -1;
  /** the last pointer position over the canvas (canvas pixels), or null once it left */
  pointer: { x: number; y: number } | null = null;

  constructor(private stageSize: () => { width: number; height: number }) {
    this.el = el("div", "pnb-tooltip pnb-hidden");
  }

  hide(): void {
    this.el.classList.add("pnb-hidden");
  }

  /** Hover node ``d`` (-1: none). Returns whether that changed; ``fill`` writes the
   * content of a new node's tip and returns false when there is nothing to show. */
  set(d: number, fill: (tip: HTMLElement, d: number) => boolean): boolean {
    if (d === this.d) {
      if (d >= 0) this.place();
      return false;
    }
    this.d = d;
    if (d < 0 || !fill(this.el, d)) {
      this.hide();
      return true;
    }
    this.el.classList.remove("pnb-hidden");
    this.place();
    return true;
  }

  /** Beside the pointer, flipped to stay inside the stage. */
  place(): void {
    if (!this.pointer) return;
    const { width, height } = this.stageSize();
    const { left, top } = tooltipPosition(this.pointer, this.el.offsetWidth || 260, this.el.offsetHeight || 60, width, height);
    this.el.style.left = `${left}px`;
    this.el.style.top = `${top}px`;
  }
}
