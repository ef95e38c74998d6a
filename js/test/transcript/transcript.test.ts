// @vitest-environment jsdom
import type { AnyModel } from "@anywidget/types";
import { describe, expect, it, vi } from "vitest";
import { Requester } from "../../src/io/comm";
import { OFFLINE_AFTER_MS } from "../../src/io/offline";
import { MockModel } from "../../src/standalone";
import { Kind } from "../../src/model/constants";
import { Transcript, branchPath } from "../../src/transcript/transcript";
import { buildTree } from "../../src/model/tree";
import { fakeRequester, flush, type Asked } from "../fakes";
import { columns, id8, rawTree } from "../helpers";

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

/** A Transcript whose scroll position the test sets (jsdom does not scroll or lay out;
 * unlaid, the view takes a screen of 600 px and keeps its estimated heights). */
function scrollable(tr: Transcript): (y: number) => Promise<void> {
  let top = 0;
  Object.defineProperty(tr.el, "scrollTop", { get: () => top, set: (v: number) => (top = Math.max(0, v)), configurable: true });
  return async (y: number) => {
    tr.el.scrollTop = y;
    tr.el.dispatchEvent(new Event("scroll"));
    await new Promise((r) => requestAnimationFrame(() => r(undefined)));
  };
}

const hooks = (line: (i: number) => string | undefined = () => "", select: (i: number) => void = () => undefined, lines: number[][] = []) => ({
  line,
  needLines: (ix: number[]) => void lines.push(ix),
  select,
});
const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const drawnIndices = (tr: Transcript): number[] => Array.from(tr.el.querySelectorAll(".pnb-tx-item"), (n) => Number((n as HTMLElement).dataset.index));

/** Every row asked for, in the order asked. */
const ix = (asked: Asked[]): number[] => asked.flatMap((a) => (a.extra.indices as number[] | undefined) ?? []);
const body = (i: number, text: string) => ({ index: i, id: id8(i), kind: Kind.User, entry: { type: "message", message: { role: "user", content: text } } });
/** Answer the request that holds row ``i``: ``i`` gets ``detail``, its other rows nothing. */
function answer(asked: Asked[], i: number, detail: unknown): void {
  const a = asked.find((q) => ((q.extra.indices as number[] | undefined) ?? []).includes(i));
  if (!a) throw new Error(`row ${i} was not asked for`);
  a.resolve({ entries: (a.extra.indices as number[]).map((j) => (j === i ? detail : null)) });
}

describe("Transcript", () => {
  it("lists the branch with headers, fills bodies once scrolling pauses, label as text", async () => {
    const { req, asked } = fakeRequester();
    const selected: number[] = [];
    const tr = new Transcript(req, noActions, hooks((i) => (i === 3 ? "line three" : undefined), (i) => selected.push(i)), 5);
    tr.show(branchPath(t, 3), c, () => true, 3);
    const items = tr.el.querySelectorAll(".pnb-tx-item");
    expect(drawnIndices(tr)).toEqual([0, 1, 2, 3]);
    expect(items[3].classList.contains("pnb-tx-selected")).toBe(true);
    expect(items[3].textContent).toContain("line three");
    expect(tr.el.querySelector("b")).toBeNull();
    expect(items[3].textContent).toContain("<b>tag</b>");
    expect(asked).toEqual([]); // nothing until the pause
    await wait(20);
    expect(asked.map((a) => a.what)).toEqual(["entries"]); // one request for the screen
    expect(ix(asked).sort()).toEqual([0, 1, 2, 3]);
    expect(tr.el.querySelectorAll(".pnb-tx-note").length).toBe(0);
    answer(asked, 0, body(0, "hello <img src=x onerror=alert(1)>"));
    await wait(5);
    expect((items[0] as HTMLElement).dataset.loaded).toBe("1");
    expect(items[0].textContent).toContain("hello");
    expect(items[0].querySelector("img[onerror]")).toBeNull();
    (items[2].querySelector(".pnb-tx-bar") as HTMLElement).click();
    expect(selected).toEqual([2]);
  });

  it("reads messages in full and keeps bookkeeping entries to their line", async () => {
    const { req, asked } = fakeRequester();
    const cc = columns([
      { id: id8(0), parent: null, kind: Kind.ModelChange, time: 0 },
      { id: id8(1), parent: id8(0), kind: Kind.User, time: 1 },
      { id: id8(2), parent: id8(1), kind: Kind.Label, time: 2 },
    ]);
    const tr = new Transcript(req, noActions, hooks((i) => `line ${i}`), 0);
    tr.show([0, 1, 2], cc, () => true, -1);
    expect(tr.el.querySelectorAll(".pnb-tx-note").length).toBe(2);
    expect(tr.el.querySelectorAll(".pnb-tx-body").length).toBe(1);
    await wait(5);
    expect(ix(asked)).toEqual([1]);
  });

  it("says why a row of a batch has no body", async () => {
    const { req, asked } = fakeRequester();
    const tr = new Transcript(req, noActions, hooks(), 0);
    tr.show([0, 1], c, () => true, -1);
    await wait(5);
    const rows = asked[0].extra.indices as number[];
    expect([...rows].sort()).toEqual([0, 1]);
    asked[0].resolve({ entries: rows.map((i) => (i === 0 ? { index: 0, error: "not saved with the notebook" } : body(1, "fine"))) });
    await wait(5);
    const items = tr.el.querySelectorAll(".pnb-tx-item");
    expect(items[0].textContent).toContain("Could not load the entry: not saved with the notebook");
    expect(items[1].textContent).toContain("fine");
  });

  it("leaves out entries the filter hides, and drops answers for an older branch", async () => {
    const { req, asked } = fakeRequester();
    const tr = new Transcript(req, noActions, hooks(), 0);
    tr.show([0, 1, 2, 3], c, (i) => i !== 1, -1);
    expect(tr.el.querySelectorAll(".pnb-tx-item").length).toBe(3);
    expect(tr.has(1)).toBe(false);
    expect(tr.has(2)).toBe(true);
    await wait(5);
    tr.show([0, 1, 4, 5], c, () => true, -1);
    answer(asked, 0, body(0, "stale"));
    await flush();
    expect(tr.el.textContent).not.toContain("stale");
  });

  describe("on a branch of 20,000 entries", () => {
    const n = 20_000;
    const big = columns(Array.from({ length: n }, (_, k) => ({ id: id8(k), parent: k ? id8(k - 1) : null, kind: k % 2 ? Kind.Assistant : Kind.User })));
    const path = Array.from({ length: n }, (_, k) => k);

    it("draws only the rows near the screen, at the top, the middle and the end", async () => {
      const { req, asked } = fakeRequester();
      const lines: number[][] = [];
      const tr = new Transcript(req, noActions, hooks(() => undefined, undefined, lines), 0);
      const scrollTo = scrollable(tr);
      tr.show(path, big, () => true, -1);
      const top = drawnIndices(tr);
      expect(top[0]).toBe(0);
      expect(top.length).toBeLessThan(40);
      await wait(5);
      // only rows on the screen itself (600 px of 110 px estimates) are asked for
      const first = ix(asked);
      expect(Math.max(...first)).toBeLessThan(7);
      expect(lines.flat().every((i) => i < 7)).toBe(true);

      await scrollTo(110 * 10_000);
      const mid = drawnIndices(tr);
      expect(mid.length).toBeLessThan(40);
      expect(mid).toContain(10_000);
      expect(mid.every((i, k) => k === 0 || i === mid[k - 1] + 1)).toBe(true);
      await wait(5);
      const second = ix(asked).slice(first.length);
      expect(second.length).toBeGreaterThan(0);
      expect(second.every((i) => i >= 10_000 && i < 10_007)).toBe(true);

      await scrollTo(1e12);
      const end = drawnIndices(tr);
      expect(end[end.length - 1]).toBe(n - 1);
      expect(end.length).toBeLessThan(40);
      expect(tr.el.querySelectorAll(".pnb-tx-item").length).toBe(tr.stats().drawn);
    });

    it("asks only for drawn rows when the load fires before the scroll's frame", async () => {
      const { req, asked } = fakeRequester();
      const tr = new Transcript(req, noActions, hooks(), 0);
      let top = 0;
      Object.defineProperty(tr.el, "scrollTop", { get: () => top, set: (v: number) => (top = Math.max(0, v)), configurable: true });
      tr.show(path, big, () => true, -1);
      // the scroll's frame is still to come when the load armed by the last draw fires
      top = 110 * 10_000;
      tr.el.dispatchEvent(new Event("scroll"));
      await wait(1);
      const drawn = new Set(drawnIndices(tr));
      expect(drawn.has(10_000)).toBe(false);
      expect(ix(asked).every((i) => drawn.has(i))).toBe(true);
      await new Promise((r) => requestAnimationFrame(() => r(undefined)));
      await wait(5);
      expect(ix(asked)).toContain(10_000);
    });

    it("asks nothing for rows scrolled past before the pause", async () => {
      const { req, asked } = fakeRequester();
      const tr = new Transcript(req, noActions, hooks(), 30);
      const scrollTo = scrollable(tr);
      tr.show(path, big, () => true, -1);
      for (const y of [110_000, 220_000, 330_000]) await scrollTo(y);
      await wait(60);
      const got = ix(asked);
      expect(got.length).toBeGreaterThan(0);
      expect(got.every((i) => i >= 3000 && i < 3007)).toBe(true);
    });

    it("shows a body already read without asking again when it scrolls back", async () => {
      const { req, asked } = fakeRequester();
      const tr = new Transcript(req, noActions, hooks(), 0);
      const scrollTo = scrollable(tr);
      tr.show(path, big, () => true, -1);
      await wait(5);
      const count = ix(asked).length;
      const read = ix(asked)[0];
      answer(asked, read, body(read, "kept body"));
      await flush();
      await scrollTo(110 * 5000);
      await wait(5);
      await scrollTo(0);
      await wait(5);
      expect(tr.el.textContent).toContain("kept body");
      expect(ix(asked).slice(count)).not.toContain(read);
    });

    it("keeps the reader's place and the bodies read when the branch grows", async () => {
      const { req, asked } = fakeRequester();
      const tr = new Transcript(req, noActions, hooks(), 0);
      const scrollTo = scrollable(tr);
      tr.show(path.slice(0, n - 10), big, () => true, -1);
      await scrollTo(110 * 5000);
      await wait(5);
      const index = ix(asked).find((i) => i >= 5000) as number;
      answer(asked, index, body(index, "read already"));
      await wait(5);
      const drawn = drawnIndices(tr);
      expect(tr.show(path, big, () => true, -1)).toBe(true);
      expect(tr.el.scrollTop).toBe(110 * 5000);
      expect(drawnIndices(tr)).toEqual(drawn);
      expect(tr.el.textContent).toContain("read already");
      expect(tr.stats().rows).toBe(n);
      // another branch (here: a filter) starts again at the top
      expect(tr.show(path, big, (i) => i % 3 !== 1, -1)).toBe(false);
      expect(tr.el.scrollTop).toBe(0);
      expect(tr.el.textContent).not.toContain("read already");
    });

    it("in offline mode asks the saved data only for the rows on screen", async () => {
      vi.useFakeTimers();
      try {
        const raw = rawTree(Array.from({ length: n }, (_, k) => ({ id: id8(k), parent: k ? id8(k - 1) : null, kind: Kind.User })));
        const saved = { n, kept: 100, origin: null, lines: Array.from({ length: 100 }, (_, k) => `saved ${k}`), tools: [] };
        const model = new MockModel({ _tree: raw, _offline: saved }, () => null);
        const sent: number[] = [];
        model.send = (c: unknown) => void sent.push(...((c as { indices?: number[] }).indices ?? []));
        const req = new Requester(model as unknown as AnyModel);
        const tr = new Transcript(req, noActions, hooks(), 0);
        tr.show(path, big, () => true, -1);
        await vi.advanceTimersByTimeAsync(OFFLINE_AFTER_MS + 100);
        expect(sent.length).toBeGreaterThan(0);
        expect(sent.every((i) => i < 7)).toBe(true);
        const first = tr.el.querySelector('.pnb-tx-item[data-index="0"]') as HTMLElement;
        expect(first.dataset.loaded).toBe("1");
        expect(first.textContent).toContain("saved 0");
        req.dispose();
      } finally {
        vi.useRealTimers();
      }
    });

    it("scrolls a selected entry into the middle of the screen", () => {
      const { req } = fakeRequester();
      const tr = new Transcript(req, noActions, hooks(), 0);
      scrollable(tr);
      tr.show(path, big, () => true, -1);
      tr.focus(15_000);
      expect(drawnIndices(tr)).toContain(15_000);
      expect(tr.el.querySelector(".pnb-tx-selected")?.getAttribute("data-index")).toBe("15000");
      expect(tr.el.querySelectorAll(".pnb-tx-item").length).toBeLessThan(40);
    });
  });
});
