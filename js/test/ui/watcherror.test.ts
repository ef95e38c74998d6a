// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import type { AnyModel } from "@anywidget/types";
import { showWatchError } from "../../src/ui/watcherror";

function fakeModel(values: Record<string, unknown>): AnyModel & { set(name: string, v: unknown): void } {
  const handlers = new Map<string, Set<() => void>>();
  return {
    get: (name: string) => values[name],
    set(name: string, v: unknown) {
      values[name] = v;
      handlers.get(`change:${name}`)?.forEach((fn) => fn());
    },
    on: (ev: string, fn: () => void) => {
      if (!handlers.has(ev)) handlers.set(ev, new Set());
      handlers.get(ev)!.add(fn);
    },
    off: (ev: string, fn: () => void) => handlers.get(ev)?.delete(fn),
  } as unknown as AnyModel & { set(name: string, v: unknown): void };
}

describe("showWatchError", () => {
  it("shows the error as text beside the status line until it clears", () => {
    const header = document.createElement("div");
    const status = document.createElement("span");
    header.append(status);
    const model = fakeModel({ watch_error: "" });
    const dispose = showWatchError(model, status);
    const note = header.querySelector(".pnb-watch-error") as HTMLElement;
    expect(note.hidden).toBe(true);
    model.set("watch_error", "live update failed: <img src=x onerror=alert(1)>");
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe("live update failed: <img src=x onerror=alert(1)>");
    expect(note.querySelector("img")).toBeNull();
    model.set("watch_error", "");
    expect(note.hidden).toBe(true);
    dispose();
    expect(header.querySelector(".pnb-watch-error")).toBeNull();
    model.set("watch_error", "after dispose");
  });

  it("works with a model that has no such trait (the HTML export)", () => {
    const status = document.createElement("span");
    document.body.append(status);
    showWatchError(fakeModel({}), status);
    expect((document.querySelector(".pnb-watch-error") as HTMLElement).hidden).toBe(true);
  });
});
