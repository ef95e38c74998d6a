import { describe, expect, it } from "vitest";
import { keyAction } from "../../src/ui/keys";

describe("keyAction", () => {
  it("maps the documented shortcuts", () => {
    expect(keyAction("ArrowUp")).toBe("parent");
    expect(keyAction("ArrowDown")).toBe("child");
    expect(keyAction("ArrowLeft")).toBe("previousSibling");
    expect(keyAction("ArrowRight")).toBe("nextSibling");
    expect(keyAction("Enter")).toBe("toggle");
    expect(keyAction(" ")).toBe("toggle");
    expect(keyAction("a")).toBe("activeLeaf");
    expect(keyAction("End")).toBe("activeLeaf");
    expect(keyAction("f")).toBe("fit");
    expect(keyAction("0")).toBe("fit");
    expect(keyAction("v")).toBe("toggleView");
    expect(keyAction("/")).toBe("search");
    expect(keyAction("n")).toBe("nextHit");
    expect(keyAction("N")).toBe("previousHit");
    expect(keyAction("Escape")).toBe("deselect");
  });
  it("leaves other keys alone, including inherited property names", () => {
    expect(keyAction("x")).toBeNull();
    expect(keyAction("toString")).toBeNull();
    expect(keyAction("constructor")).toBeNull();
  });
});
