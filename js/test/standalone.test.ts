import { describe, expect, it } from "vitest";
import { decodeTree } from "../src/data";
import { MockModel, answer, treeFrom64, type StandaloneData } from "../src/standalone";

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

  it("answers requests from inlined data", () => {
    expect(answer(data, { what: "entry", index: 1 })).toMatchObject({ id: "bbbbbbbb" });
    expect(answer(data, { what: "entry", index: 0 })).toBeNull();
    expect(answer(data, { what: "preview", index: 0 })).toMatchObject({ first_line: "hi" });
    expect(answer(data, { what: "search", query: "WORLD" })).toEqual({ indices: [0, 1] });
    expect(answer(data, { what: "search", query: "hello world" })).toEqual({ indices: [0] });
    expect(answer(data, { what: "context", index: 1 })).toMatchObject({ messages: [] });
    expect(answer(data, { what: "context", index: 0 })).toBeNull();
    expect(() => answer(data, { what: "nope" })).toThrow(/unknown/);
  });

  it("mock model: get/set/on/off and request round trip", async () => {
    const m = new MockModel({ filter: "default" }, (msg) => answer(data, msg));
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
  });
});
