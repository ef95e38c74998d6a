import type { AnyModel } from "@anywidget/types";
import { describe, expect, it } from "vitest";
import { Requester, storeFor } from "../../src/io/comm";
import { idAt } from "../../src/model/data";
import { MockModel } from "../../src/standalone";
import { rawTree } from "../helpers";

const base = rawTree([
  { id: "aaaaaaaa", parent: null, kind: 0 },
  { id: "bbbbbbbb", parent: "aaaaaaaa", kind: 1 },
]);

describe("Store", () => {
  it("appends rows sent as buffers, once per model", () => {
    const model = new MockModel({ _tree: base }, () => null);
    const store = storeFor(model as unknown as AnyModel);
    expect(storeFor(model as unknown as AnyModel)).toBe(store);
    const events: boolean[] = [];
    store.subscribe((reset) => events.push(reset));
    const add = rawTree([{ id: "cccccccc", parent: null, kind: 0, time: 9 }]);
    (add.parent as DataView).setInt32(0, 1, true);
    const { n, ids, parent, kind, flags, tokens, time } = add;
    model.emit(
      "msg:custom",
      {
        type: "append",
        n,
        columns: ["ids", "parent", "kind", "flags", "tokens", "time"],
        active_leaf: 2,
        labels: [[2, "fresh"]],
        compactions: [],
      },
      [ids, parent, kind, flags, tokens, time],
    );
    expect(store.cols.n).toBe(3);
    expect(idAt(store.cols, 2)).toBe("cccccccc");
    expect(store.cols.parent[2]).toBe(1);
    expect(store.cols.labels.get(2)).toBe("fresh");
    expect(events).toEqual([false]);
    model.emit("msg:custom", { type: "response", rid: "x" }, []);
    expect(store.cols.n).toBe(3);
    model.set("_tree", { ...base });
    expect(store.cols.n).toBe(2);
    expect(events).toEqual([false, true]);
  });
});

describe("Requester", () => {
  it("matches responses to requests and reports errors", async () => {
    const model = new MockModel({ _tree: base }, (msg) => {
      if (msg.what === "boom") throw new Error("nope");
      return { echo: msg.what };
    });
    const req = new Requester(model as unknown as AnyModel, 1000);
    await expect(req.request("preview", { index: 1 })).resolves.toEqual({ echo: "preview" });
    await expect(req.request("boom")).rejects.toThrow("nope");
    const pending = req.request("entry");
    req.dispose();
    await expect(pending).rejects.toThrow("closed");
  });
});
