// Following a live session: new entries come into view while the newest one is on screen
// (or Follow is on); otherwise an "N new" marker counts them and jumps there on a click.
import { button } from "./dom";

export class Follow {
  /** the marker button, on the stage's bottom edge */
  readonly marker: HTMLButtonElement;
  /** entries appended since the newest was last in view */
  pending = 0;

  constructor(private jump: () => void) {
    this.marker = button("", "Show the newest entries (and keep following)", () => this.goNewest(), "pnb-new-marker pnb-hidden");
  }

  /** Rows arrived. ``newestWasInView``: the newest entry before them was on screen, so
   * the reader is following: bring the new ones into view. Returns whether it did. */
  appended(added: number, newestWasInView: boolean): boolean {
    if (added <= 0) return false;
    if (newestWasInView) {
      this.clear();
      this.jump();
      return true;
    }
    this.pending += added;
    this.marker.textContent = `↓ ${this.pending.toLocaleString("en-US")} new`;
    this.marker.classList.remove("pnb-hidden");
    return false;
  }

  /** The reader went to the newest entries by other means (or the data was replaced). */
  clear(): void {
    this.pending = 0;
    this.marker.classList.add("pnb-hidden");
  }

  private goNewest(): void {
    this.clear();
    this.jump();
  }
}
