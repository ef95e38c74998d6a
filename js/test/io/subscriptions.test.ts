import type { AnyModel } from "@anywidget/types";
import { describe, expect, it } from "vitest";
import { Disposers, onModelChanges } from "../../src/io/subscriptions";

function fakeModel(): { model: AnyModel; fire: (ev: string) => void; count: () => number } {
  const handlers = new Map<string, Set<() => void>>();
  const model = {
    on: (ev: string, fn: () => void) => {
      if (!handlers.has(ev)) handlers.set(ev, new Set());
      handlers.get(ev)?.add(fn);
    },
    off: (ev: string, fn: () => void) => handlers.get(ev)?.delete(fn),
  };
  return {
    model: model as unknown as AnyModel,
    fire: (ev) => handlers.get(ev)?.forEach((fn) => fn()),
    count: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
  };
}

describe("onModelChanges", () => {
  it("listens to change:<trait> and removes every listener it added", () => {
    const { model, fire, count } = fakeModel();
    const seen: string[] = [];
    const off = onModelChanges(model, { view: () => seen.push("view"), search: () => seen.push("search") });
    fire("change:view");
    fire("change:search");
    fire("view");
    expect(seen).toEqual(["view", "search"]);
    expect(count()).toBe(2);
    off();
    expect(count()).toBe(0);
    fire("change:view");
    expect(seen).toEqual(["view", "search"]);
  });
});

describe("Disposers", () => {
  it("tears down in reverse order, once", () => {
    const order: number[] = [];
    const d = new Disposers();
    d.add(() => order.push(1));
    d.add(() => order.push(2));
    d.dispose();
    d.dispose();
    expect(order).toEqual([2, 1]);
  });
});
