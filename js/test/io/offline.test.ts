import type { AnyModel } from "@anywidget/types";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Requester } from "../../src/io/comm";
import { decodeTree } from "../../src/model/data";
import { answerOffline, NOT_SAVED, OFFLINE_AFTER_MS, offlineData, type OfflineData } from "../../src/io/offline";
import { MockModel } from "../../src/standalone";
import { rawTree } from "../helpers";

const raw = rawTree(
  [
    { id: "aaaaaaaa", parent: null, kind: 0, time: 0 },
    { id: "bbbbbbbb", parent: "aaaaaaaa", kind: 1, time: 2, tokens: 42 },
    { id: "cccccccc", parent: "bbbbbbbb", kind: 2, time: 3 },
  ],
  { labelsById: { bbbbbbbb: "Checkpoint" } },
);
const saved: OfflineData = {
  n: 3,
  kept: 2,
  origin: "2026-01-05T10:00:00.000Z",
  lines: ["Fix the <b>parser</b>", "Looking at it"],
  tools: [[1, "read"]],
};

/** A model whose kernel never answers (its send goes nowhere), or answers with `reply`. */
function silentModel(offline: unknown, reply?: (msg: Record<string, unknown>) => unknown): MockModel {
  const model = new MockModel({ _tree: raw, _offline: offline }, reply ?? (() => null));
  if (!reply) model.send = () => {};
  return model;
}

describe("answerOffline", () => {
  const cols = decodeTree(raw);
  it("answers lines, previews and search from the saved first lines", () => {
    expect(answerOffline(saved, cols, { what: "lines", indices: [0, 1, 2, 9] })).toEqual({
      lines: ["Fix the <b>parser</b>", "Looking at it", "", ""],
    });
    expect(answerOffline(saved, cols, { what: "preview", index: 1 })).toMatchObject({
      first_line: "Looking at it",
      time: "2026-01-05T10:00:02.000Z",
      tokens: 42,
      tool_name: "read",
    });
    expect(answerOffline(saved, cols, { what: "preview", index: 2 })).toMatchObject({ first_line: `(${NOT_SAVED})` });
    expect(answerOffline(saved, cols, { what: "search", query: "PARSER fix" })).toEqual({ indices: [0] });
    expect(answerOffline(saved, cols, { what: "search", query: "checkpoint" })).toEqual({ indices: [1] });
    expect(answerOffline(saved, cols, { what: "search", query: "read" })).toEqual({ indices: [1] });
  });

  it("answers a batch of entries a row at a time, with an error for rows not saved", () => {
    const got = answerOffline(saved, cols, { what: "entries", indices: [0, 2, 9] }) as { entries: Record<string, unknown>[] };
    expect(got.entries[0]).toEqual(answerOffline(saved, cols, { what: "entry", index: 0 }));
    expect(got.entries[1]).toEqual({ index: 2, error: expect.stringContaining(NOT_SAVED) });
    expect(got.entries[2]).toEqual({ index: 9, error: "no entry at index 9" });
    expect(() => answerOffline(saved, cols, { what: "entries", indices: 3 })).toThrow("entries needs a list of indices");
  });

  it("gives a short entry for saved rows and says what is missing for the others", () => {
    const detail = answerOffline(saved, cols, { what: "entry", index: 1 }) as Record<string, any>;
    expect(detail).toMatchObject({ index: 1, id: "bbbbbbbb", kind: 1, label: "Checkpoint" });
    expect(detail.entry).toMatchObject({ parentId: "aaaaaaaa", first_line: "Looking at it", tool: "read" });
    expect(() => answerOffline(saved, cols, { what: "entry", index: 2 })).toThrow("first 2 of 3 entries");
    expect(() => answerOffline(saved, cols, { what: "entry", index: 7 })).toThrow("no entry at index 7");
    expect(() => answerOffline(saved, cols, { what: "context", index: 1 })).toThrow(NOT_SAVED);
    expect(() => answerOffline(saved, cols, { what: "nope" })).toThrow("unknown request nope");
  });

  it("reads the trait defensively", () => {
    expect(offlineData(null)).toBeNull();
    expect(offlineData({ kept: 3 })).toBeNull();
    expect(offlineData({ kept: 5, lines: ["a", 7], tools: [[0, "x"], "bad"] })).toEqual({
      n: 0,
      kept: 2,
      origin: null,
      lines: ["a", ""],
      tools: [[0, "x"]],
    });
  });
});

describe("Requester without a kernel", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("answers from saved data once the kernel stays silent, then at once", async () => {
    const req = new Requester(silentModel(saved) as unknown as AnyModel);
    const first = req.request("lines", { indices: [0] });
    let done = false;
    first.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(OFFLINE_AFTER_MS - 10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    await expect(first).resolves.toEqual({ lines: ["Fix the <b>parser</b>"] });
    const second = req.request("preview", { index: 0 });
    await vi.advanceTimersByTimeAsync(1);
    await expect(second).resolves.toMatchObject({ first_line: "Fix the <b>parser</b>" });
    const context = req.request("context", { index: 0 });
    const failed = expect(context).rejects.toThrow(NOT_SAVED);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    req.dispose();
  });

  it("keeps waiting for the kernel when nothing was saved", async () => {
    const req = new Requester(silentModel(undefined) as unknown as AnyModel, 60000);
    let settled = false;
    const pending = req.request("lines", { indices: [0] });
    pending.then(() => (settled = true)).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(OFFLINE_AFTER_MS * 3);
    expect(settled).toBe(false);
    req.dispose();
    await expect(pending).rejects.toThrow("closed");
  });

  it("never answers from saved data once the kernel has answered", async () => {
    const model = silentModel(saved, (msg) => ({ from: "kernel", what: msg.what }));
    const req = new Requester(model as unknown as AnyModel, 60000);
    const first = req.request("lines", { indices: [0] });
    await vi.advanceTimersByTimeAsync(1);
    await expect(first).resolves.toEqual({ from: "kernel", what: "lines" });
    model.send = () => {}; // the kernel is now busy: its answer comes late
    let settled = false;
    req.request("preview", { index: 0 }).then(
      () => (settled = true),
      () => undefined, // rejected by dispose() below
    );
    await vi.advanceTimersByTimeAsync(OFFLINE_AFTER_MS * 3);
    expect(settled).toBe(false);
    req.dispose();
  });
});
