/** The family view's data: what Python sends (widget/_family_data.py), checked on arrival.
 *
 * Sessions come from untrusted files, so every field is checked and coerced here; the
 * rest of the view can then trust the types. No DOM. */

export type Kind = "root" | "fork" | "subagent";

export interface FamilySession {
  key: string;
  label: string;
  file: string;
  kind: Kind;
  parent: string | null;
  level: number;
  rlmDepth: number | null;
  entries: number;
  /** entries not copied from a fork's source */
  newEntries: number;
  /** row of the parent entry in the parent's file order; -1 when unknown */
  at: number;
  forkedFrom: string | null;
  ownCost: number;
  error: string | null;
}

export interface FamilyData {
  sessions: FamilySession[];
  totals: { sessions: number; uniqueEntries: number; tokens: number; cost: number };
  problems: number;
}

const KINDS: readonly Kind[] = ["root", "fork", "subagent"];

function str(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function strOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function int(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : fallback;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function obj(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The payload as typed data; malformed records are dropped, never thrown on. */
export function parseFamily(raw: unknown): FamilyData {
  const top = obj(raw);
  const list = Array.isArray(top.sessions) ? top.sessions : [];
  const seen = new Set<string>();
  const sessions: FamilySession[] = [];
  for (const item of list) {
    const s = obj(item);
    const key = strOrNull(s.key);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    const kind = KINDS.includes(s.kind as Kind) ? (s.kind as Kind) : "root";
    const entries = Math.max(0, int(s.entries));
    sessions.push({
      key,
      label: str(s.label, key),
      file: str(s.file),
      kind,
      parent: strOrNull(s.parent),
      level: Math.max(0, int(s.level)),
      rlmDepth: typeof s.rlmDepth === "number" ? int(s.rlmDepth) : null,
      entries,
      newEntries: Math.min(entries, Math.max(0, int(s.new, entries))),
      at: int(s.at, -1),
      forkedFrom: strOrNull(s.forkedFrom),
      ownCost: num(s.ownCost),
      error: strOrNull(s.error),
    });
  }
  const totals = obj(top.totals);
  return {
    sessions,
    totals: {
      sessions: int(totals.sessions, sessions.length),
      uniqueEntries: int(totals.unique_entries),
      tokens: int(totals.tokens),
      cost: num(totals.cost),
    },
    problems: int(top.problems),
  };
}
