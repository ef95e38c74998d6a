// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { MD_CHUNK, renderRest, renderWithin, splitMarkdown } from "../../src/ui/mdchunks";

describe("splitMarkdown", () => {
  it("keeps short text whole", () => {
    expect(splitMarkdown("hello *world*")).toEqual(["hello *world*"]);
  });

  it("cuts hostile text without blank lines into pieces that join back", () => {
    const text = "*a".repeat(100_000);
    const pieces = splitMarkdown(text);
    expect(pieces.join("")).toBe(text);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(MD_CHUNK);
    expect(pieces.length).toBe(Math.ceil(text.length / MD_CHUNK));
  });

  it("cuts at blank lines outside code blocks", () => {
    const para = "word ".repeat(150).trim();
    const text = [para, para, para, para, para, para].join("\n\n");
    const pieces = splitMarkdown(text, 2000);
    expect(pieces.join("")).toBe(text);
    expect(pieces.length).toBe(3);
    expect(pieces[0]).toBe(`${para}\n\n${para}\n`);
  });

  it("closes a code block cut in two and opens it again", () => {
    const code = "```python\n" + "x = 1\n\n".repeat(600) + "```";
    const text = `intro\n\n${code}\n\nafter *this*`;
    const pieces = splitMarkdown(text, 2000);
    expect(pieces.length).toBeGreaterThan(2);
    const fences = (p: string): number => p.split("\n").filter((l) => l.startsWith("```")).length;
    for (const piece of pieces) expect(fences(piece) % 2).toBe(0);
    expect(pieces.filter((p) => p.startsWith("```python\n")).length).toBeGreaterThan(1);
    expect(pieces.join("").split("x = 1").length - 1).toBe(600);
    expect(pieces.at(-1)!.endsWith("```\n\nafter *this*")).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    const text = "x" + "😀".repeat(5000);
    for (const piece of splitMarkdown(text, 101)) {
      expect(/[\ud800-\udbff]$|^[\udc00-\udfff]/.test(piece)).toBe(false);
    }
  });
});

describe("rendering within a budget", () => {
  it("stops at the char budget and renders the rest a piece per task", async () => {
    const box = document.createElement("div");
    document.body.append(box);
    const pieces = Array.from({ length: 10 }, (_, i) => `p${i}`.padEnd(1000, "."));
    const render = (piece: string): Node => document.createTextNode(piece);
    const next = renderWithin(box, pieces, render, 3000, 10_000);
    expect(next).toBe(3);
    expect(box.textContent).toBe(pieces.slice(0, 3).join(""));
    await new Promise<void>((resolve) => renderRest(box, pieces, next, render, resolve));
    expect(box.textContent).toBe(pieces.join(""));
  });

  it("stops at the time budget after at least one piece", () => {
    const box = document.createElement("div");
    const slow = (piece: string): Node => {
      const until = performance.now() + 5;
      while (performance.now() < until) {
        /* a slow parse */
      }
      return document.createTextNode(piece);
    };
    expect(renderWithin(box, ["a", "b", "c"], slow, 1e9, 1)).toBe(1);
  });

  it("stops when the box left the page", async () => {
    const box = document.createElement("div");
    let done = false;
    renderRest(box, ["a", "b"], 0, (p) => document.createTextNode(p), () => (done = true));
    expect(done).toBe(true);
    expect(box.textContent).toBe("");
  });
});
