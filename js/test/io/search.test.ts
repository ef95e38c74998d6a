import { describe, expect, it } from "vitest";
import { Search } from "../../src/io/search";
import { fakeRequester, flush } from "../fakes";

const countEl = (): HTMLElement => ({ textContent: "" }) as HTMLElement;

describe("Search", () => {
  it("turns the kernel's indices into a mask, ignoring out-of-range ones", async () => {
    const { req, asked } = fakeRequester();
    const count = countEl();
    const s = new Search(req, count);
    let done = 0;
    s.run("foo", 4, () => done++);
    expect(count.textContent).toBe("…");
    asked[0].resolve({ indices: [1, 3, 7, -1] });
    await flush();
    expect(done).toBe(1);
    expect(Array.from(s.hits ?? [])).toEqual([0, 1, 0, 1]);
    s.arrange([0, 1, 2, 3], [1, 1, 1, 0], -1);
    expect(s.list).toEqual([1]);
    expect(s.hidden).toBe(1);
    expect(count.textContent).toBe("–/1 (+1 hidden)");
  });

  it("is pending from the question to its answer (Enter then waits for the first hit)", async () => {
    const { req, asked } = fakeRequester();
    const s = new Search(req, countEl());
    s.run("a", 3, () => undefined);
    expect(s.pending).toBe(true);
    asked[0].resolve({ indices: [2] });
    await flush();
    expect(s.pending).toBe(false);
  });

  it("keeps only the latest query's answer", async () => {
    const { req, asked } = fakeRequester();
    const s = new Search(req, countEl());
    const done: string[] = [];
    s.run("a", 3, () => done.push("a"));
    s.run("b", 3, () => done.push("b"));
    asked[1].resolve({ indices: [2] });
    asked[0].resolve({ indices: [0] });
    await flush();
    expect(done).toEqual(["b"]);
    expect(Array.from(s.hits ?? [])).toEqual([0, 0, 1]);
  });

  it("clears on an empty query and steps through hits with wrap-around", async () => {
    const { req, asked } = fakeRequester();
    const count = countEl();
    const s = new Search(req, count);
    s.run("x", 5, () => s.arrange([4, 3, 2, 1, 0], [1, 1, 1, 1, 1], 3));
    asked[0].resolve({ indices: [0, 3, 4] });
    await flush();
    expect(s.list).toEqual([4, 3, 0]);
    expect(s.current).toBe(3);
    expect(s.step(1)).toBe(0);
    expect(s.step(1)).toBe(4);
    expect(count.textContent).toBe("1/3");
    s.run("", 5, () => s.arrange([0], [1], -1));
    expect(s.hits).toBeNull();
    expect(s.step(1)).toBe(-1);
    expect(count.textContent).toBe("");
  });

  it("shows an error and keeps the old hits when the kernel fails", async () => {
    const { req, asked } = fakeRequester();
    const count = countEl();
    const s = new Search(req, count);
    s.run("x", 2, () => undefined);
    asked[0].reject(new Error("boom"));
    await flush();
    expect(count.textContent).toBe("error");
    expect(s.hits).toBeNull();
  });
});
