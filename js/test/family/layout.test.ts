import { describe, expect, it } from "vitest";
import type { FamilySession } from "../../src/family/data";
import { layoutFamily } from "../../src/family/layout";

function session(key: string, parent: string | null, extra: Partial<FamilySession> = {}): FamilySession {
  return {
    key,
    label: key,
    file: `${key}.jsonl`,
    kind: parent === null ? "root" : "fork",
    parent,
    level: 0,
    rlmDepth: 0,
    entries: 10,
    newEntries: 10,
    at: -1,
    forkedFrom: null,
    ownCost: 0,
    error: null,
    ...extra,
  };
}

describe("layoutFamily", () => {
  it("puts each session on its own row, children starting after their branch entry", () => {
    const layout = layoutFamily([
      session("root", null, { entries: 26 }),
      session("sub", "root", { kind: "subagent", at: 6, entries: 17 }),
      session("subsub", "sub", { kind: "subagent", at: 6, entries: 11 }),
      session("fork", "root", { at: 15, entries: 29, newEntries: 9 }),
      session("fork2", "fork", { at: 4, entries: 33, newEntries: 8 }),
    ]);
    expect(layout.rows).toBe(5);
    const lane = Object.fromEntries(layout.lanes.map((l) => [l.key, l]));
    expect([lane.root.x0, lane.root.x1]).toEqual([0, 26]);
    expect([lane.sub.x0, lane.sub.x1]).toEqual([7, 24]); // a sub-agent: all its entries
    expect([lane.subsub.x0, lane.subsub.x1]).toEqual([14, 25]);
    expect([lane.fork.x0, lane.fork.x1]).toEqual([16, 25]); // a fork: only its new entries
    expect([lane.fork2.x0, lane.fork2.x1]).toEqual([21, 29]);
    expect(layout.width).toBe(29);
    expect(layout.links.map((l) => [l.parent, l.child, l.kind, l.x, l.fromRow, l.toRow])).toEqual([
      ["root", "sub", "subagent", 6.5, 0, 1],
      ["sub", "subsub", "subagent", 13.5, 1, 2],
      ["root", "fork", "fork", 15.5, 0, 3],
      ["fork", "fork2", "fork", 20.5, 3, 4],
    ]);
  });

  it("treats a missing or later parent as no parent, clamps branch points, never loops", () => {
    const layout = layoutFamily([
      session("a", "b"), // parent listed later: a root here
      session("b", "a", { at: 999, newEntries: 0 }),
      session("c", "nowhere"),
      session("d", "a", { at: -1, kind: "subagent", entries: 0 }),
    ]);
    const lane = Object.fromEntries(layout.lanes.map((l) => [l.key, l]));
    expect(lane.a.x0).toBe(0);
    expect([lane.b.x0, lane.b.x1]).toEqual([10, 11]); // clamped to a's last entry; 1 wide
    expect(lane.c.x0).toBe(0);
    expect([lane.d.x0, lane.d.x1]).toEqual([0, 1]); // unknown branch point: the lane start
    expect(layout.links.map((l) => l.child)).toEqual(["b", "d"]);
  });

  it("lays out nothing as an empty one-unit-wide family", () => {
    expect(layoutFamily([])).toEqual({ lanes: [], links: [], width: 1, rows: 0 });
  });
});
