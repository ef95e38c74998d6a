/** Family layout in grid units: one lane (row) per session, x in entries. No DOM.
 *
 * A root's lane starts at 0 and is as long as its file. A child's lane starts just after
 * the entry it branched from (``at`` in the parent's file order), so lanes line up where
 * the work forked; a fork's lane is only as long as its new entries (the copied prefix is
 * the parent's). Rows follow the order given (parents before children), so a child is
 * always below its parent. */

import type { FamilySession, Kind } from "./data";

export interface Lane {
  key: string;
  row: number;
  x0: number;
  x1: number;
  kind: Kind;
  level: number;
}

export interface Link {
  parent: string;
  child: string;
  kind: Kind;
  /** where on the parent's lane the child branches off */
  x: number;
  fromRow: number;
  toRow: number;
}

export interface FamilyLayout {
  lanes: Lane[];
  links: Link[];
  /** the largest x1: the width in entries */
  width: number;
  rows: number;
}

export function layoutFamily(sessions: readonly FamilySession[]): FamilyLayout {
  const placed = new Map<string, Lane>();
  const lanes: Lane[] = [];
  const links: Link[] = [];
  for (const s of sessions) {
    const parent = s.parent !== null ? placed.get(s.parent) : undefined;
    let x0 = 0;
    let branch = 0;
    if (parent !== undefined) {
      const span = parent.x1 - parent.x0;
      const at = s.at >= 0 ? Math.min(s.at, Math.max(0, span - 1)) : -1;
      branch = at >= 0 ? parent.x0 + at + 0.5 : parent.x0;
      x0 = at >= 0 ? parent.x0 + at + 1 : parent.x0;
    }
    const lane: Lane = {
      key: s.key,
      row: lanes.length,
      x0,
      x1: x0 + Math.max(1, s.kind === "fork" ? s.newEntries : s.entries),
      kind: s.kind,
      level: s.level,
    };
    lanes.push(lane);
    placed.set(s.key, lane);
    if (parent !== undefined) {
      links.push({
        parent: parent.key,
        child: s.key,
        kind: s.kind,
        x: branch,
        fromRow: parent.row,
        toRow: lane.row,
      });
    }
  }
  const width = lanes.reduce((w, lane) => Math.max(w, lane.x1), 1);
  return { lanes, links, width, rows: lanes.length };
}
