import { describe, expect, it } from "vitest";
import { EntryText } from "../../src/io/entrytext";
import { fakeRequester, flush } from "../fakes";

describe("EntryText", () => {
  it("asks for each line once and stores the answers by index", async () => {
    const { req, asked } = fakeRequester();
    const t = new EntryText(req);
    let ready = 0;
    t.fetchLines([2, 5], () => ready++);
    t.fetchLines([2, 5], () => ready++);
    expect(asked.length).toBe(1);
    expect(asked[0].extra).toEqual({ indices: [2, 5] });
    asked[0].resolve({ lines: ["two", null] });
    await flush();
    expect(ready).toBe(1);
    expect(t.lines.get(2)).toBe("two");
    expect(t.lines.get(5)).toBe("");
  });

  it("drops answers that arrive after a reset (indices changed meaning)", async () => {
    const { req, asked } = fakeRequester();
    const t = new EntryText(req);
    let ready = 0;
    t.fetchLines([1], () => ready++);
    t.reset();
    asked[0].resolve({ lines: ["stale"] });
    await flush();
    expect(ready).toBe(0);
    expect(t.lines.size).toBe(0);
    t.fetchLines([1], () => ready++);
    expect(asked.length).toBe(2);
  });

  it("caps one request at 400 entries", () => {
    const { req, asked } = fakeRequester();
    new EntryText(req).fetchLines(Array.from({ length: 1000 }, (_, i) => i), () => undefined);
    expect((asked[0].extra.indices as number[]).length).toBe(400);
  });

  it("caches previews, and asks again after a failure or new rows", async () => {
    const { req, asked } = fakeRequester();
    const t = new EntryText(req);
    const first = t.preview(3);
    t.preview(3);
    expect(asked.length).toBe(1);
    asked[0].resolve({ first_line: "hi" });
    expect(await first).toEqual({ first_line: "hi" });
    expect(await t.preview(3)).toEqual({ first_line: "hi" });
    expect(asked.length).toBe(1);
    t.grew();
    const again = t.preview(3);
    asked[1].reject(new Error("gone"));
    await expect(again).rejects.toThrow("gone");
    await flush();
    t.preview(3);
    expect(asked.length).toBe(3);
  });
});
