import { describe, expect, it } from "vitest";
import { CallIndex, callArguments, chunkOf, entryDetail, previewAt, pyTruthy, type DetailSources } from "../../src/io/exported";

type Entry = Record<string, unknown>;

const ids = ["a0000000", "r1000000", "r2000000", "u3000000"];

// row 0: an assistant with two tool calls (the second answered by row 2, the first by row 1)
const entries: Entry[] = [
  {
    type: "message",
    message: {
      role: "assistant",
      model: "m",
      usage: { totalTokens: 9 },
      content: [
        { type: "text", text: "x" },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
        "not a block",
        { type: "toolCall", id: "c2", name: "bash" },
      ],
    },
  },
  { type: "message", message: { role: "toolResult", toolName: "read", isError: {}, content: [{ type: "text", text: "A" }] } },
  { type: "message", message: { role: "toolResult", toolName: "bash", isError: true, content: "B" } },
  { type: "message", message: "odd", isError: [1], content: "top level" },
];

function sources(calls: ConstructorParameters<typeof CallIndex>[0]): DetailSources & { reads: number[] } {
  const reads: number[] = [];
  return {
    n: entries.length,
    idAt: (row) => ids[row],
    kindAt: (row) => [1, 2, 2, 0][row],
    entryAt: async (row) => {
      reads.push(row);
      return entries[row] ?? null;
    },
    labels: new Map([[2, "done"]]),
    cost: [0.25, null],
    calls: new CallIndex(calls, entries.length),
    reads,
  };
}

const CALLS = { assistant: [0, 0], call_id: ["c1", "c2"], name: ["read", "bash"], result: [1, 2] };

describe("exported page answers", () => {
  it("pairs an assistant's calls with their results' content", async () => {
    const detail = await entryDetail(sources(CALLS), 0);
    expect(detail).toEqual({
      index: 0,
      id: "a0000000",
      kind: 1,
      entry: entries[0],
      label: null,
      tool_results: {
        c1: { index: 1, id: "r1000000", tool_name: "read", is_error: false, content: [{ type: "text", text: "A" }] },
        c2: { index: 2, id: "r2000000", tool_name: "bash", is_error: true, content: "B" },
      },
      tool_call: null,
      usage: { totalTokens: 9 },
      cost: 0.25,
      model: "m",
    });
  });

  it("gives a result its call, with the arguments of the right block", async () => {
    const one = await entryDetail(sources(CALLS), 1);
    expect(one?.tool_call).toEqual({ call_id: "c1", name: "read", arguments: { path: "a" }, assistant_id: "a0000000", assistant_index: 0 });
    const two = await entryDetail(sources(CALLS), 2);
    expect(two?.tool_call).toMatchObject({ call_id: "c2", name: "bash", arguments: null });
    expect(two?.label).toBe("done");
    expect(two?.usage).toBeNull();
  });

  it("leaves out calls without a result or with rows out of range; the last call wins a result", () => {
    const index = new CallIndex({ assistant: [0, 0, 3, 9], call_id: ["c1", null, "c3", "c4"], name: [null, "x", "y", "z"], result: [-1, 1, 1, 2] }, 4);
    expect(index.byAssistant.get(0)).toBeUndefined();
    expect(index.byResult.get(1)).toMatchObject({ callId: "c3", assistant: 3, ordinal: 0 });
    expect(index.byResult.has(2)).toBe(false);
    expect(new CallIndex(undefined, 4).byResult.size).toBe(0);
  });

  it("an entry whose message is no object is its own message", async () => {
    const detail = await entryDetail(sources({}), 3);
    expect(detail).toMatchObject({ usage: null, model: null, cost: null, tool_results: {}, tool_call: null });
    expect(await entryDetail(sources({}), 4)).toBeNull();
    expect(await entryDetail(sources({}), -1)).toBeNull();
  });

  it("reads only the entries it needs", async () => {
    const src = sources(CALLS);
    await entryDetail(src, 3);
    expect(src.reads).toEqual([3]);
    await entryDetail(src, 1);
    expect(src.reads).toEqual([3, 1, 0]);
  });

  it("callArguments counts toolCall blocks only", () => {
    expect(callArguments(entries[0], 0)).toEqual({ path: "a" });
    expect(callArguments(entries[0], 1)).toBeNull();
    expect(callArguments(entries[0], 2)).toBeNull();
    expect(callArguments(null, 0)).toBeNull();
    expect(callArguments({ message: { content: "text" } }, 0)).toBeNull();
  });

  it("pyTruthy is Python's bool()", () => {
    expect([[], {}, "", 0, null, undefined, false, NaN].map(pyTruthy)).toEqual(Array(8).fill(false));
    expect([[0], { a: 1 }, "x", 1, true].map(pyTruthy)).toEqual(Array(5).fill(true));
  });

  it("previews from columns and first lines", () => {
    const cols = { role: ["user", null], tokens: [0, 5], time: ["2026-01-01T00:00:00+00:00", null] };
    const lines = ["hi", null];
    expect(previewAt(cols, lines, 0)).toEqual({ role: "user", type: null, time: "2026-01-01T00:00:00+00:00", first_line: "hi", tokens: 0, tool_name: null });
    expect(previewAt(cols, lines, 1)).toMatchObject({ first_line: "", tokens: 5 });
    expect(previewAt(cols, lines, 2)).toBeNull();
    expect(previewAt(null, lines, 0)).toMatchObject({ first_line: "hi", role: null, tokens: 0 });
    expect(previewAt(cols, null, 1)).toMatchObject({ first_line: "", tokens: 5 });
    expect(previewAt(null, null, 0)).toBeNull();
  });

  it("chunkOf finds the chunk of a row", () => {
    const starts = [0, 5000, 7000];
    expect([0, 4999, 5000, 6999, 7000, 99999].map((r) => chunkOf(starts, r))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(chunkOf([], 0)).toBe(-1);
    expect(chunkOf(starts, -1)).toBe(-1);
  });
});
