// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { Kind } from "../src/constants";
import { Transcript, branchPath } from "../src/transcript";
import { buildTree } from "../src/tree";
import { fakeRequester, flush } from "./fakes";
import { columns, id8 } from "./helpers";

// 0 -> 1 -> {2 -> 3 (older), 4 -> 5 (active: last row)}
const rows = [
  { id: id8(0), parent: null, kind: Kind.User, time: 0 },
  { id: id8(1), parent: id8(0), kind: Kind.Assistant, time: 1 },
  { id: id8(2), parent: id8(1), kind: Kind.User, time: 2 },
  { id: id8(3), parent: id8(2), kind: Kind.Assistant, time: 3 },
  { id: id8(4), parent: id8(1), kind: Kind.User, time: 4 },
  { id: id8(5), parent: id8(4), kind: Kind.Assistant, time: 5 },
];
const c = columns(rows, { labelsById: { [id8(3)]: "<b>tag</b>" } });
const t = buildTree(c);
const noActions = { selectId: () => undefined, selectIndex: () => undefined, showContext: () => undefined, close: () => undefined };

describe("branchPath", () => {
  it("is the active path when nothing is selected", () => {
    expect(branchPath(t, -1)).toEqual([0, 1, 4, 5]);
  });
  it("goes through the selected entry down to its leaf", () => {
    expect(branchPath(t, 2)).toEqual([0, 1, 2, 3]);
    expect(branchPath(t, 3)).toEqual([0, 1, 2, 3]);
  });
  it("follows the active path below a shared entry", () => {
    expect(branchPath(t, 1)).toEqual([0, 1, 4, 5]);
  });
});

describe("Transcript", () => {
  it("lists the branch with headers at once, fills bodies on request, label as text", async () => {
    const { req, asked } = fakeRequester();
    const selected: number[] = [];
    const tr = new Transcript(req, noActions, (i) => (i === 3 ? "line three" : undefined), (i) => selected.push(i));
    tr.show(branchPath(t, 3), c, () => true, 3);
    const items = tr.el.querySelectorAll(".pnb-tx-item");
    expect(Array.from(items, (n) => (n as HTMLElement).dataset.index)).toEqual(["0", "1", "2", "3"]);
    expect(items[3].classList.contains("pnb-tx-selected")).toBe(true);
    expect(items[3].textContent).toContain("line three");
    expect(tr.el.querySelector("b")).toBeNull();
    expect(items[3].textContent).toContain("<b>tag</b>");
    // no IntersectionObserver in jsdom: the first entries are asked for directly
    expect(asked.map((a) => a.extra.index)).toEqual([0, 1, 2, 3]);
    expect(tr.el.querySelectorAll(".pnb-tx-note").length).toBe(0);
    asked[0].resolve({ index: 0, id: id8(0), kind: Kind.User, entry: { type: "message", message: { role: "user", content: "hello <img src=x onerror=alert(1)>" } } });
    await flush();
    expect((items[0] as HTMLElement).dataset.loaded).toBe("1");
    expect(items[0].textContent).toContain("hello");
    expect(items[0].querySelector("img[onerror]")).toBeNull();
    (items[2].querySelector(".pnb-tx-bar") as HTMLElement).click();
    expect(selected).toEqual([2]);
  });

  it("reads messages in full and keeps bookkeeping entries to their line", () => {
    const { req, asked } = fakeRequester();
    const cc = columns([
      { id: id8(0), parent: null, kind: Kind.ModelChange, time: 0 },
      { id: id8(1), parent: id8(0), kind: Kind.User, time: 1 },
      { id: id8(2), parent: id8(1), kind: Kind.Label, time: 2 },
    ]);
    const tr = new Transcript(req, noActions, (i) => `line ${i}`, () => undefined);
    tr.show([0, 1, 2], cc, () => true, -1);
    expect(tr.el.querySelectorAll(".pnb-tx-note").length).toBe(2);
    expect(tr.el.querySelectorAll(".pnb-tx-body").length).toBe(1);
    expect(asked.map((a) => a.extra.index)).toEqual([1]);
  });

  it("leaves out entries the filter hides, and drops answers for an older branch", async () => {
    const { req, asked } = fakeRequester();
    const tr = new Transcript(req, noActions, () => "", () => undefined);
    tr.show([0, 1, 2, 3], c, (i) => i !== 1, -1);
    expect(tr.el.querySelectorAll(".pnb-tx-item").length).toBe(3);
    tr.show([0, 1, 4, 5], c, () => true, -1);
    asked[0].resolve({ index: 0, id: id8(0), kind: Kind.User, entry: { type: "message", message: { role: "user", content: "stale" } } });
    await flush();
    expect(tr.el.textContent).not.toContain("stale");
  });
});
