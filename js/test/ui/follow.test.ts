// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { Follow } from "../../src/ui/follow";

describe("Follow", () => {
  it("jumps to new entries while the newest was in view", () => {
    let jumps = 0;
    const f = new Follow(() => jumps++);
    expect(f.appended(3, true)).toBe(true);
    expect(jumps).toBe(1);
    expect(f.marker.classList.contains("pnb-hidden")).toBe(true);
  });

  it("counts them on a marker otherwise; a click jumps and clears it", () => {
    let jumps = 0;
    const f = new Follow(() => jumps++);
    expect(f.appended(2, false)).toBe(false);
    expect(f.appended(1, false)).toBe(false);
    expect(f.marker.textContent).toBe("↓ 3 new");
    expect(f.marker.classList.contains("pnb-hidden")).toBe(false);
    f.marker.click();
    expect(jumps).toBe(1);
    expect(f.pending).toBe(0);
    expect(f.marker.classList.contains("pnb-hidden")).toBe(true);
  });

  it("ignores empty appends", () => {
    const f = new Follow(() => undefined);
    expect(f.appended(0, false)).toBe(false);
    expect(f.marker.classList.contains("pnb-hidden")).toBe(true);
  });
});
