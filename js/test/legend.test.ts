// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { buildLegend } from "../src/legend";

describe("buildLegend", () => {
  it("lists every kind and mark, and its title toggles it", () => {
    const L = document.createElement("div");
    buildLegend(L);
    expect(L.querySelectorAll(".pnb-legend-item").length).toBe(19);
    expect(L.querySelector(".pnb-legend-keys")?.textContent).toContain("f: fit");
    const title = L.querySelector(".pnb-legend-title") as HTMLElement;
    title.click();
    expect(L.classList.contains("pnb-collapsed")).toBe(true);
    title.click();
    expect(L.classList.contains("pnb-collapsed")).toBe(false);
  });
});
