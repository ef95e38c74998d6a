import { describe, expect, it } from "vitest";
import { appendRows, decodeTree, fromBase64, idAt, indexOfId } from "../../src/model/data";
import { columns, rawTree } from "../helpers";

const rows = [
  { id: "aaaaaaaa", parent: null, kind: 0, tokens: 0, time: 0 },
  { id: "bbbbbbbb", parent: "aaaaaaaa", kind: 1, flags: 16, tokens: 1234, time: 1.5 },
  { id: "cccccccc", parent: "bbbbbbbb", kind: 2, flags: 1, time: 2 },
];

describe("decodeTree", () => {
  it("decodes every column from DataViews", () => {
    const c = columns(rows, { labelsById: { bbbbbbbb: "fix" }, compactionsById: [["cccccccc", "aaaaaaaa", 900]] });
    expect(c.n).toBe(3);
    expect(Array.from(c.parent)).toEqual([-1, 0, 1]);
    expect(Array.from(c.kind)).toEqual([0, 1, 2]);
    expect(Array.from(c.flags)).toEqual([0, 16, 1]);
    expect(c.tokens[1]).toBe(1234);
    expect(c.time[1]).toBeCloseTo(1.5);
    expect(c.activeLeaf).toBe(2);
    expect(c.labels.get(1)).toBe("fix");
    expect(c.compactions).toEqual([{ index: 2, firstKept: 0, tokensBefore: 900 }]);
    expect(idAt(c, 1)).toBe("bbbbbbbb");
    expect(indexOfId(c, "cccccccc")).toBe(2);
    expect(indexOfId(c, "zzzzzzzz")).toBe(-1);
  });

  it("accepts unaligned views and ArrayBuffers", () => {
    const raw = rawTree(rows);
    const big = new Uint8Array(13 + 12);
    big.set(new Uint8Array((raw.parent as DataView).buffer), 13);
    raw.parent = new DataView(big.buffer, 13, 12);
    raw.kind = (raw.kind as DataView).buffer as ArrayBuffer;
    const c = decodeTree(raw);
    expect(Array.from(c.parent)).toEqual([-1, 0, 1]);
    expect(Array.from(c.kind)).toEqual([0, 1, 2]);
  });

  it("clamps bad parents and active leaf", () => {
    const raw = rawTree(rows);
    const p = raw.parent as DataView;
    p.setInt32(4, 99, true);
    p.setInt32(8, 2, true); // self
    raw.active_leaf = 42;
    const c = decodeTree(raw);
    expect(Array.from(c.parent)).toEqual([-1, -1, -1]);
    expect(c.activeLeaf).toBe(2);
  });

  it("uses id_list when ids are not 8 chars", () => {
    const raw = rawTree(rows);
    raw.ids = null;
    raw.id_list = ["root", "x-long-id-1", "c"];
    const c = decodeTree(raw);
    expect(idAt(c, 1)).toBe("x-long-id-1");
    expect(indexOfId(c, "c")).toBe(2);
  });

  it("throws on short columns", () => {
    const raw = rawTree(rows);
    raw.n = 10;
    expect(() => decodeTree(raw)).toThrow(/too short/);
  });
});

describe("appendRows", () => {
  it("appends rows whose parents point into the old table", () => {
    const c = columns(rows);
    const add = rawTree([{ id: "dddddddd", parent: null, kind: 0, time: 3 }]);
    (add.parent as DataView).setInt32(0, 1, true); // child of bbbbbbbb (old row 1)
    add.active_leaf = 3;
    add.labels = [[3, "new"]];
    const next = appendRows(c, add);
    expect(next.n).toBe(4);
    expect(Array.from(next.parent)).toEqual([-1, 0, 1, 1]);
    expect(idAt(next, 3)).toBe("dddddddd");
    expect(next.activeLeaf).toBe(3);
    expect(next.labels.get(3)).toBe("new");
    expect(indexOfId(next, "dddddddd")).toBe(3);
  });
});

describe("the output-tokens column", () => {
  it("is decoded, appended, and zeros in a state saved before it was sent", () => {
    const c = columns([
      { id: "aaaaaaaa", parent: null, kind: 0, output: 0 },
      { id: "bbbbbbbb", parent: "aaaaaaaa", kind: 1, output: 4_000_000_000 },
    ]);
    expect(Array.from(c.output)).toEqual([0, 4_000_000_000]);
    const next = appendRows(c, rawTree([{ id: "cccccccc", parent: null, kind: 1, output: 77 }]));
    expect(Array.from(next.output)).toEqual([0, 4_000_000_000, 77]);
    const old = rawTree([{ id: "aaaaaaaa", parent: null, kind: 0 }]);
    delete old.output;
    expect(Array.from(decodeTree(old).output)).toEqual([0]);
  });
});

describe("fromBase64", () => {
  it("round-trips bytes", () => {
    const b = fromBase64(btoa(String.fromCharCode(0, 1, 2, 250, 255)));
    expect(Array.from(b)).toEqual([0, 1, 2, 250, 255]);
  });
});
