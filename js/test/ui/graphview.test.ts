import { describe, expect, it } from "vitest";

declare global {
  interface ImportMeta {
    glob(pattern: string, opts: { query: string; import: string; eager: true }): Record<string, string>;
  }
}

/** Every front-end module's text, by path from ``src/`` (read by the test runner). */
const SOURCES = Object.fromEntries(
  Object.entries(import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true })).map(([p, text]) => [
    p.replace("../../src/", ""),
    text,
  ]),
);
const VIEWS = ["tree", "branches", "transcript"];

/** The modules a file imports (relative paths as written). */
function importsOf(text: string): string[] {
  return [...text.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
}

describe("the shared UI knows no view", () => {
  it("reads the sources", () => {
    expect(Object.keys(SOURCES)).toContain("ui/graphview.ts");
  });

  it("ui/ imports nothing from a view's folder", () => {
    const bad: string[] = [];
    for (const [p, text] of Object.entries(SOURCES)) {
      if (!p.startsWith("ui/")) continue;
      for (const target of importsOf(text)) if (VIEWS.some((v) => target.startsWith(`../${v}/`))) bad.push(`${p} -> ${target}`);
    }
    expect(bad).toEqual([]);
  });

  it("no view imports another view", () => {
    const bad: string[] = [];
    for (const [p, text] of Object.entries(SOURCES)) {
      const v = p.split("/")[0];
      if (!VIEWS.includes(v)) continue;
      for (const target of importsOf(text)) if (VIEWS.some((o) => o !== v && target.startsWith(`../${o}/`))) bad.push(`${p} -> ${target}`);
    }
    expect(bad).toEqual([]);
  });
});
