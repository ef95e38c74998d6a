import { describe, expect, it } from "vitest";
import { decodeTree } from "../src/data";
import { MockModel, answer, readPart, treeFrom64, withParts, type StandaloneData } from "../src/standalone";

const b64 = (bytes: number[]): string => btoa(String.fromCharCode(...bytes));

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
  details: [null, { index: 1, id: "bbbbbbbb", kind: 1, entry: { type: "message" } }],
  previews: [{ role: "user", first_line: "hi" }, null],
  texts: ["hello world", "goodbye world"],
  contexts: { "1": { index: 1, messages: [] } },
};

describe("standalone data", () => {
  it("decodes base64 columns like ipywidgets buffers", () => {
    const c = decodeTree(treeFrom64(data.tree));
    expect(Array.from(c.parent)).toEqual([-1, 0]);
    expect(c.tokens[1]).toBe(7);
    expect(c.time[1]).toBe(1);
  });

  it("answers requests from inlined data", async () => {
    const part = withParts(data, undefined);
    expect(await answer(part, { what: "entry", index: 1 })).toMatchObject({ id: "bbbbbbbb" });
    expect(await answer(part, { what: "entry", index: 0 })).toBeNull();
    expect(await answer(part, { what: "preview", index: 0 })).toMatchObject({ first_line: "hi" });
    expect(await answer(part, { what: "lines", indices: [0, 1, 9] })).toEqual({ lines: ["hi", "", ""] });
    expect(await answer(part, { what: "search", query: "WORLD" })).toEqual({ indices: [0, 1] });
    expect(await answer(part, { what: "search", query: "hello world" })).toEqual({ indices: [0] });
    expect(await answer(part, { what: "context", index: 1 })).toMatchObject({ messages: [] });
    expect(await answer(part, { what: "context", index: 0 })).toBeNull();
    await expect(answer(part, { what: "nope" })).rejects.toThrow(/unknown/);
  });

  it("reads compressed parts once, when first asked for", async () => {
    const packed = async (value: unknown): Promise<Element> => {
      const stream = new Blob([JSON.stringify(value)]).stream().pipeThrough(new CompressionStream("gzip"));
      const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
      return { textContent: btoa(String.fromCharCode(...bytes)) } as Element;
    };
    const loads: string[] = [];
    const bare: StandaloneData = { tree: data.tree, parts: ["texts", "details"] };
    const part = withParts(bare, (name) => {
      loads.push(name);
      return packed(name === "texts" ? data.texts : data.details).then(readPart);
    });
    expect(loads).toEqual([]);
    expect(await answer(part, { what: "search", query: "goodbye" })).toEqual({ indices: [1] });
    expect(await answer(part, { what: "search", query: "hello" })).toEqual({ indices: [0] });
    expect(await answer(part, { what: "entry", index: 1 })).toMatchObject({ id: "bbbbbbbb" });
    expect(loads).toEqual(["texts", "details"]);
    // a part the page does not have is simply absent
    expect(await answer(part, { what: "context", index: 1 })).toBeNull();
    expect(await readPart(null)).toBeNull();
  });

  it("mock model: get/set/on/off and request round trip", async () => {
    const m = new MockModel({ filter: "default" }, (msg) => answer(withParts(data, undefined), msg));
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
