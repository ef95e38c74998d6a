// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { Kind } from "../../src/model/constants";
import { argsText, entryBody, revealHits, type EntryDetail } from "../../src/ui/panelcontent";

const noActions = { selectId: () => undefined, selectIndex: () => undefined, showContext: () => undefined, close: () => undefined };

describe("argsText", () => {
  it("shows a key per line and a multi-line string as its lines, not JSON escapes", () => {
    const text = argsText({ path: "a.py", content: "def f():\n    return 1\n", n: 3, ok: true, none: null });
    expect(text).toBe(["path: a.py", "content: |", "  def f():", "      return 1", "  ", "n: 3", "ok: true", "none: null"].join("\n"));
    expect(text).not.toContain("\\n");
  });

  it("indents nested objects and lists, and reads arguments sent as a JSON string", () => {
    const text = argsText('{"edits": [{"old": "x\\ny", "new": "z"}], "opts": {}, "tags": []}');
    expect(text).toBe(["edits:", "  -", "    old: |", "      x", "      y", "    new: z", "opts: {}", "tags: []"].join("\n"));
    expect(argsText("not json {")).toBe("not json {");
    expect(argsText("{broken")).toBe("{broken");
    expect(argsText(42)).toBe("42");
  });

  it("is shown as text: markup in an argument never becomes an element", () => {
    const detail: EntryDetail = {
      index: 0,
      id: "a",
      kind: Kind.Assistant,
      entry: {
        type: "message",
        message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: { content: "<img src=x onerror=alert(1)>\nline two" } }] },
      },
      label: null,
      tool_results: {},
      tool_call: null,
      usage: null,
      cost: null,
      model: null,
    } as unknown as EntryDetail;
    const body = entryBody(detail, noActions);
    const pre = body.querySelector(".pnb-args") as HTMLElement;
    expect(pre.textContent).toBe("content: |\n  <img src=x onerror=alert(1)>\n  line two");
    expect(body.querySelector("img")).toBeNull();
  });
});

describe("revealHits", () => {
  const withThinking = (): HTMLElement => {
    const detail = {
      index: 0,
      id: "a",
      kind: Kind.Assistant,
      entry: {
        type: "message",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "the Flaky retry loop" },
            { type: "thinking", thinking: "nothing here" },
            { type: "text", text: "answer" },
          ],
        },
      },
      tool_results: {},
    } as unknown as EntryDetail;
    return entryBody(detail, noActions);
  };

  it("opens the Thinking blocks that hold a word of the query, case aside", () => {
    const body = withThinking();
    const blocks = body.querySelectorAll("details.pnb-thinking");
    expect(Array.from(blocks, (d) => (d as HTMLDetailsElement).open)).toEqual([false, false]);
    expect(revealHits(body, "  FLAKY   zzz ")).toBe(1);
    expect(Array.from(blocks, (d) => (d as HTMLDetailsElement).open)).toEqual([true, false]);
  });

  it("opens nothing without a query or a match", () => {
    const body = withThinking();
    expect(revealHits(body, "")).toBe(0);
    expect(revealHits(body, "answer")).toBe(0);
    expect(body.querySelectorAll("details[open]").length).toBe(0);
  });
});
