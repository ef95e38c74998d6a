import { describe, expect, it } from "vitest";
import { parseFamily } from "../../src/family/data";

describe("parseFamily", () => {
  it("checks every field of an untrusted payload", () => {
    const data = parseFamily({
      sessions: [
        { key: "r", label: "<b>root</b>", kind: "root", entries: 3, new: 3, at: -1, ownCost: 0.5 },
        { key: "r", label: "duplicate key dropped" },
        { key: 7 },
        "not a record",
        { key: "f", parent: "r", kind: "evil", entries: "9", new: 99, at: 1.7, ownCost: "x" },
      ],
      totals: { sessions: 2, unique_entries: 5, tokens: 10, cost: 0.25 },
      problems: 1,
    });
    expect(data.sessions.map((s) => s.key)).toEqual(["r", "f"]);
    expect(data.sessions[0].label).toBe("<b>root</b>"); // text, set with textContent later
    const f = data.sessions[1];
    expect([f.kind, f.entries, f.newEntries, f.at, f.ownCost]).toEqual(["root", 0, 0, 1, 0]);
    expect(data.totals).toEqual({ sessions: 2, uniqueEntries: 5, tokens: 10, cost: 0.25 });
    expect(parseFamily(null)).toEqual({
      sessions: [],
      totals: { sessions: 0, uniqueEntries: 0, tokens: 0, cost: 0 },
      problems: 0,
    });
  });
});
