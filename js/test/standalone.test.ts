import { describe, expect, it } from "vitest";
import { decodeTree } from "../src/model/data";
import { MockModel, Rows, documentRead, inflateText, pageAnswers, parsePart, readPart, treeFrom64, withParts, type StandaloneData } from "../src/standalone";

const b64 = (bytes: number[]): string => btoa(String.fromCharCode(...bytes));

// two entries: a user prompt (row 0) and an assistant answer (row 1)
const data: StandaloneData = {
  tree: {
    n: 2,
    ids: b64([..."aaaaaaaabbbbbbbb"].map((ch) => ch.charCodeAt(0))),
    parent: b64([255, 255, 255, 255, 0, 0, 0, 0]),
    kind: b64([0, 1]),
    flags: b64([0, 0]),
    tokens: b64([0, 0, 0, 0, 7, 0, 0, 0]),
    time: b64([0, 0, 0, 0, 0, 0, 128, 63]),
    active_leaf: 1,
    labels: [[1, "x"]],
    compactions: [],
  },
  entries: [
    { type: "message", id: "aaaaaaaa", message: { role: "user", content: "hello" } },
    { type: "message", id: "bbbbbbbb", message: { role: "assistant", content: [], model: "m1" } },
  ],
  lines: ["hi", ""],
  previews: { role: ["user", "assistant"], type: ["message", "message"], tokens: [0, 7] },
  extras: { labels: [[1, "a long label"]], cost: [null, 0.5], calls: {} },
  texts: ["hello world", "goodbye world"],
  contexts: { "1": { index: 1, messages: [] } },
};

/** base64 of the gzip of a value's JSON, as the export writes a part */
async function packed(value: unknown): Promise<string> {
  const stream = new Blob([JSON.stringify(value)]).stream().pipeThrough(new CompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(bin);
}

describe("standalone data", () => {
  it("decodes base64 columns like ipywidgets buffers", () => {
    const c = decodeTree(treeFrom64(data.tree));
    expect(Array.from(c.parent)).toEqual([-1, 0]);
    expect(c.tokens[1]).toBe(7);
    expect(c.time[1]).toBe(1);
  });

  it("answers requests from inlined data", async () => {
    const ask = pageAnswers(data);
    expect(await ask({ what: "entry", index: 1 })).toMatchObject({
      id: "bbbbbbbb",
      kind: 1,
      label: "a long label",
      cost: 0.5,
      model: "m1",
      tool_results: {},
      tool_call: null,
    });
    expect(await ask({ what: "entry", index: 0 })).toMatchObject({ id: "aaaaaaaa", cost: null, label: null, model: null });
    expect(await ask({ what: "entry", index: 2 })).toBeNull();
    expect(await ask({ what: "preview", index: 0 })).toMatchObject({ role: "user", first_line: "hi" });
    expect(await ask({ what: "preview", index: 5 })).toBeNull();
    expect(await ask({ what: "lines", indices: [0, 1, 9] })).toEqual({ lines: ["hi", "", ""] });
    expect(await ask({ what: "search", query: "WORLD" })).toEqual({ indices: [0, 1] });
    expect(await ask({ what: "search", query: "hello world" })).toEqual({ indices: [0] });
    expect(await ask({ what: "context", index: 1 })).toMatchObject({ messages: [] });
    expect(await ask({ what: "context", index: 0 })).toBeNull();
    await expect(ask({ what: "nope" })).rejects.toThrow(/unknown/);
  });

  it("reads compressed parts once, when first asked for, entries a chunk at a time", async () => {
    const parts: Record<string, unknown> = {
      texts: data.texts,
      extras: data.extras,
      "entries-0": [data.entries![0]],
      "entries-1": [data.entries![1]],
    };
    const loads: string[] = [];
    const bare: StandaloneData = { tree: data.tree, parts: Object.keys(parts), chunks: [0, 1] };
    const ask = pageAnswers(bare, async (name) => {
      loads.push(name);
      return readPart({ textContent: await packed(parts[name]) } as Element);
    });
    expect(loads).toEqual([]);
    expect(await ask({ what: "search", query: "goodbye" })).toEqual({ indices: [1] });
    expect(await ask({ what: "search", query: "hello" })).toEqual({ indices: [0] });
    expect(await ask({ what: "entry", index: 1 })).toMatchObject({ id: "bbbbbbbb", entry: { id: "bbbbbbbb" } });
    expect(loads).toEqual(["texts", "extras", "entries-1"]);
    expect(await ask({ what: "entry", index: 0 })).toMatchObject({ id: "aaaaaaaa" });
    expect(loads).toEqual(["texts", "extras", "entries-1", "entries-0"]);
    // a part the page does not have is simply absent
    expect(await ask({ what: "context", index: 1 })).toBeNull();
    expect(await ask({ what: "preview", index: 1 })).toBeNull();
    expect(await readPart(null)).toBeNull();
  });

  it("without a list of parts, asks for each (null: none) and the index for the chunks", async () => {
    const parts: Record<string, unknown> = {
      index: { parts: ["lines", "entries-0", "entries-1"], chunks: [0, 1] },
      lines: data.lines,
      "entries-0": [data.entries![0]],
      "entries-1": [data.entries![1]],
    };
    const loads: string[] = [];
    const ask = pageAnswers({ tree: data.tree }, async (name) => {
      loads.push(name);
      return parts[name] ?? null;
    });
    expect(await ask({ what: "lines", indices: [0] })).toEqual({ lines: ["hi"] });
    expect(await ask({ what: "search", query: "hello" })).toEqual({ indices: [] });
    expect(await ask({ what: "entry", index: 1 })).toMatchObject({ id: "bbbbbbbb", cost: null, label: null });
    expect(loads).toEqual(["lines", "texts", "extras", "index", "entries-1"]);
  });

  it("documentRead waits for the document when it is still loading", async () => {
    const listeners: (() => void)[] = [];
    const doc = { readyState: "loading", addEventListener: (_: string, fn: () => void) => listeners.push(fn) } as unknown as Document;
    let done = false;
    const p = documentRead(doc).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    listeners.forEach((fn) => fn());
    await p;
    expect(done).toBe(true);
    await documentRead({ readyState: "complete" } as Document);
  });

  it("withParts prefers inline values and loads each part once", async () => {
    let calls = 0;
    const part = withParts({ tree: data.tree, texts: ["x"], parts: ["contexts"] }, async () => ++calls);
    expect(await part("texts")).toEqual(["x"]);
    expect(await part("contexts")).toBe(1);
    expect(await part("contexts")).toBe(1);
    expect(await part("extras")).toBeNull();
    expect(calls).toBe(1);
  });

  it("mock model: get/set/on/off and request round trip", async () => {
    const m = new MockModel({ filter: "default" }, pageAnswers(data));
    const seen: unknown[] = [];
    const fn = (): void => void seen.push(m.get("filter"));
    m.on("change:filter", fn);
    m.set("filter", "all");
    m.set("filter", "all");
    m.off("change:filter", fn);
    m.set("filter", "user-only");
    expect(seen).toEqual(["all"]);
    const reply = await new Promise((resolve) => {
      m.on("msg:custom", resolve);
      m.send({ type: "request", rid: "r1", what: "search", query: "goodbye" });
    });
    expect(reply).toEqual({ type: "response", rid: "r1", data: { indices: [1] } });
    const failed = await new Promise((resolve) => {
      m.off("msg:custom");
      m.on("msg:custom", resolve);
      m.send({ type: "request", rid: "r2", what: "nope" });
    });
    expect(failed).toMatchObject({ rid: "r2", error: expect.stringMatching(/unknown/) });
  });
});

/** A list as the export writes a part a row a line (``_pack.ROWS_OPEN``...). */
const rowText = (lines: string[]): string => `[\n${lines.join("\n,")}\n]`;

describe("parts a row a line", () => {
  it("parses each row when first asked for, and a plain part whole", () => {
    const rows = parsePart(rowText(['{"a":1}', '"x\\ny"', "[2,3]"])) as Rows;
    expect(rows).toBeInstanceOf(Rows);
    expect(rows.length).toBe(3);
    expect(rows.at(0)).toEqual({ a: 1 });
    expect(rows.at(0)).toBe(rows.at(0));
    expect(rows.at(1)).toBe("x\ny");
    expect(rows.at(2)).toEqual([2, 3]);
    expect([rows.at(3), rows.at(-1), rows.at(0.5)]).toEqual([undefined, undefined, undefined]);
    expect((parsePart("[\n\n]") as Rows).length).toBe(1);
    expect((parsePart("[\n]") as Rows).length).toBe(0);
    expect(parsePart('[{"a":1},2]')).toEqual([{ a: 1 }, 2]);
    expect(parsePart('{"cost":[1]}')).toEqual({ cost: [1] });
    // still one JSON array, as the Python side reads it back
    expect(JSON.parse(rowText(['{"a":1}', "2"]))).toEqual([{ a: 1 }, 2]);
  });

  it("answers an entry from its row alone: a broken row elsewhere in the chunk is never parsed", async () => {
    const chunk = rowText([JSON.stringify(data.entries![0]), "{broken", JSON.stringify(data.entries![1])]);
    const bare: StandaloneData = { tree: { ...data.tree }, parts: ["entries-0", "extras"], chunks: [0] };
    const ask = pageAnswers(bare, async (name) => (name === "entries-0" ? parsePart(chunk) : data.extras));
    expect(await ask({ what: "entry", index: 0 })).toMatchObject({ id: "aaaaaaaa", entry: { message: { content: "hello" } } });
    await expect(ask({ what: "entry", index: 1 })).rejects.toThrow(SyntaxError);
  });

  it("inflates a big part a slice at a time, letting timers run between slices", async () => {
    let seed = 7;
    const noise = Array.from({ length: 40_000 }, () => ((seed = (seed * 48271) % 2147483647) % 1e6).toString(36));
    const text = await packed(noise);
    expect(text.length).toBeGreaterThan(4 * (1 << 15)); // several slices
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      expect(JSON.parse(await inflateText(text, 0))).toEqual(noise);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(2);
    expect(await readPart({ textContent: ` ${text}\n` } as Element)).toEqual(noise);
  });

  it("rejects a part that is not gzip", async () => {
    await expect(inflateText(btoa("not gzip at all"))).rejects.toThrow();
  });
});
