// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import { Toolbar, type ToolbarActions } from "../../src/ui/toolbar";

function actions(current = ""): ToolbarActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    setView: (v) => calls.push(`view:${v}`),
    setFilter: (f) => calls.push(`filter:${f}`),
    setSearch: (q) => calls.push(`search:${q}`),
    confirmSearch: (q) => calls.push(`confirm:${q}`),
    stepHit: (s) => calls.push(`step:${s}`),
    currentSearch: () => current,
    fit: () => calls.push("fit"),
    goActive: () => calls.push("active"),
    toggleLegend: () => calls.push("legend"),
    leaveSearch: () => calls.push("leave"),
    showProblems: () => calls.push("problems"),
  };
}

describe("Toolbar", () => {
  it("debounces typing into one search, and Enter on the same query steps hits", () => {
    vi.useFakeTimers();
    const a = actions("abc");
    const tb = new Toolbar(a);
    tb.searchInput.value = "ab";
    tb.searchInput.dispatchEvent(new Event("input"));
    tb.searchInput.value = "abc";
    tb.searchInput.dispatchEvent(new Event("input"));
    vi.advanceTimersByTime(500);
    expect(a.calls).toEqual(["search:abc"]);
    tb.searchInput.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", shiftKey: true }));
    expect(a.calls).toEqual(["search:abc", "step:-1"]);
    tb.searchInput.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(a.calls.at(-1)).toBe("leave");
    vi.useRealTimers();
  });

  it("Enter on a new query searches and asks for the first hit, in one press", () => {
    const a = actions("");
    const tb = new Toolbar(a);
    tb.searchInput.value = "parser";
    tb.searchInput.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(a.calls).toEqual(["confirm:parser"]);
  });

  it("Fit is off in the Transcript (nothing to fit), on in the graph views", () => {
    const tb = new Toolbar(actions());
    const fit = [...tb.bar.querySelectorAll("button")].find((b) => b.textContent === "Fit") as HTMLButtonElement;
    const sync = (view: "tree" | "branches" | "transcript"): void => tb.sync({ name: "s", cwd: "", view, filter: "default", search: "" });
    sync("transcript");
    expect(fit.disabled).toBe(true);
    sync("tree");
    expect(fit.disabled).toBe(false);
    sync("branches");
    expect(fit.disabled).toBe(false);
  });

  it("Escape clears the search, the box and a query still waiting, then leaves the box", () => {
    vi.useFakeTimers();
    const a = actions("abc");
    const tb = new Toolbar(a);
    tb.searchInput.value = "abcd";
    tb.searchInput.dispatchEvent(new Event("input"));
    tb.searchInput.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    vi.advanceTimersByTime(500);
    expect(a.calls).toEqual(["search:", "leave"]);
    expect(tb.searchInput.value).toBe("");
    vi.useRealTimers();
  });

  it("Escape with no search in force only leaves the box", () => {
    const a = actions("");
    const tb = new Toolbar(a);
    tb.searchInput.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(a.calls).toEqual(["leave"]);
  });

  it("shows the problem count only when there are problems, and opens the list", () => {
    const a = actions();
    const tb = new Toolbar(a);
    tb.showProblemCount(0);
    expect(tb.problems.classList.contains("pnb-hidden")).toBe(true);
    tb.showProblemCount(14);
    expect(tb.problems.classList.contains("pnb-hidden")).toBe(false);
    expect(tb.problems.textContent).toBe("⚠ 14 problems");
    tb.problems.click();
    expect(a.calls).toEqual(["problems"]);
  });

  it("a pending search is dropped on dispose", () => {
    vi.useFakeTimers();
    const a = actions();
    const tb = new Toolbar(a);
    tb.searchInput.value = "x";
    tb.searchInput.dispatchEvent(new Event("input"));
    tb.dispose();
    vi.advanceTimersByTime(500);
    expect(a.calls).toEqual([]);
    vi.useRealTimers();
  });

  it("sync shows the state; session text is set as text, never as HTML", () => {
    const tb = new Toolbar(actions());
    tb.sync({ name: "<img src=x onerror=alert(1)>", cwd: "/w", view: "branches", filter: "all", search: "q" });
    expect(tb.header.querySelector("img")).toBeNull();
    expect(tb.header.textContent).toContain("<img src=x onerror=alert(1)>");
    expect(tb.bar.querySelector(".pnb-on")?.textContent).toBe("Branches");
    expect((tb.bar.querySelector("select") as HTMLSelectElement).value).toBe("all");
    expect(tb.searchInput.value).toBe("q");
  });
});
