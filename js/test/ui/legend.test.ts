// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { buildLegend, toggleLegend } from "../../src/ui/legend";

describe("buildLegend", () => {
  it("lists every kind and mark, and its title toggles it", () => {
    const L = document.createElement("div");
    buildLegend(L);
    expect(L.querySelectorAll(".pnb-legend-item").length).toBe(19);
    expect(L.querySelector(".pnb-legend-keys")?.textContent).toContain("f: fit");
    const title = L.querySelector(".pnb-legend-title") as HTMLElement;
    const shut = L.classList.contains("pnb-collapsed");
    title.click();
    expect(L.classList.contains("pnb-collapsed")).toBe(!shut);
    title.click();
    expect(L.classList.contains("pnb-collapsed")).toBe(shut);
  });

  it("starts shut, then opens as it was last left", () => {
    localStorage.clear();
    const first = document.createElement("div");
    buildLegend(first);
    expect(first.classList.contains("pnb-collapsed")).toBe(true);
    toggleLegend(first);
    const next = document.createElement("div");
    buildLegend(next);
    expect(next.classList.contains("pnb-collapsed")).toBe(false);
    (next.querySelector(".pnb-legend-title") as HTMLElement).click();
    const third = document.createElement("div");
    buildLegend(third);
    expect(third.classList.contains("pnb-collapsed")).toBe(true);
  });
});
