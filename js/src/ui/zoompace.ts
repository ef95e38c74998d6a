/** Zoom notches closer together than this are a fast zoom: no level of detail is built
 * in their frames, and the views build it once the notches pause. */
export const FAST_ZOOM_MS = 120;

/** How fast the zoom notches come, one clock per view: the Tree and Branches keep the
 * same pace rule. */
export class ZoomPace {
  private at = -Infinity;

  /** Handle a notch, told whether it came fast after the previous one was handled. */
  notch<T>(handle: (fast: boolean) => T): T {
    const fast = performance.now() - this.at < FAST_ZOOM_MS;
    try {
      return handle(fast);
    } finally {
      this.at = performance.now();
    }
  }

  /** The zoom paused and its level is built: the next notch is not a fast one. */
  reset(): void {
    this.at = -Infinity;
  }
}
