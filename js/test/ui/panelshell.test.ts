// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { SidePanel } from "../../src/ui/panelshell";
import { fakeRequester, flush } from "../fakes";

const noActions = { selectId: () => undefined, selectIndex: () => undefined, showContext: () => undefined, close: () => undefined };

describe("SidePanel", () => {
  it("opens once, shows Loading, and draws only the latest entry asked for", async () => {
    const { req, asked } = fakeRequester();
    const toggles: boolean[] = [];
    const p = new SidePanel(req, noActions, (open) => toggles.push(open));
    p.showEntry(1, "aaaa", false);
    p.showEntry(2, "bbbb", true);
    expect(toggles).toEqual([true]);
    expect(p.el.textContent).toContain("Loading");
    asked[0].resolve({ id: "aaaa", type: "message", role: "user", text: "first" });
    await flush();
    expect(p.el.dataset.loaded).toBeUndefined();
    asked[1].reject(new Error("kernel gone"));
    await flush();
    expect(p.el.textContent).toContain("Could not load the entry: kernel gone");
    p.hide();
    p.hide();
    expect(toggles).toEqual([true, false]);
  });

  it("says so when the entry is not available", async () => {
    const { req, asked } = fakeRequester();
    const p = new SidePanel(req, noActions, () => undefined);
    p.showEntry(0, "x", true);
    asked[0].resolve(null);
    await flush();
    expect(p.el.textContent).toContain("not available");
  });

  it("opens a Thinking block holding the search in force", async () => {
    const { req, asked } = fakeRequester();
    const p = new SidePanel(req, noActions, () => undefined, () => "retry");
    p.showEntry(0, "a", true);
    asked[0].resolve({
      index: 0,
      id: "a",
      kind: Kind.Assistant,
      entry: { type: "message", message: { role: "assistant", content: [{ type: "thinking", thinking: "why the retry fails" }] } },
      tool_results: {},
    });
    await flush();
    expect((p.el.querySelector("details.pnb-thinking") as HTMLDetailsElement).open).toBe(true);
  });

  it("hides itself for the Transcript only when it shows an entry", () => {
    const { req } = fakeRequester();
    const p = new SidePanel(req, noActions, () => undefined);
    p.showContext(0, () => undefined);
    p.hideEntry();
    p.showEntry(0, "a", true);
    expect(p.open).toBe(true);
    p.hideEntry();
    expect(p.open).toBe(false);
    p.showProblems([], 0, () => undefined);
    p.hideEntry();
    expect(p.open).toBe(true);
  });
});
