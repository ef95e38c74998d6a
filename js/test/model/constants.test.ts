import { describe, expect, it } from "vitest";
import { Kind, entryKindName } from "../../src/model/constants";

describe("entryKindName", () => {
  it("names an entry without a kind code of its own by its line", () => {
    expect(entryKindName(Kind.Other, "session state: active")).toEqual({ name: "session state", rest: "active" });
    expect(entryKindName(Kind.Other, "status · idle")).toEqual({ name: "status", rest: "idle" });
  });

  it("names every other entry by its kind, the line whole", () => {
    expect(entryKindName(Kind.User, "session state: active")).toEqual({ name: "user", rest: "session state: active" });
    expect(entryKindName(Kind.Other, "Something else entirely")).toEqual({ name: "other", rest: "Something else entirely" });
  });
});
