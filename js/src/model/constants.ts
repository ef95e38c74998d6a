/** Entry kind codes, flag bits and the visual vocabulary shared by every module. */

export const Kind = {
  User: 0,
  Assistant: 1,
  ToolResult: 2,
  Bash: 3,
  CustomMessage: 4,
  Compaction: 5,
  BranchSummary: 6,
  ModelChange: 7,
  ThinkingChange: 8,
  Label: 9,
  SessionInfo: 10,
  Custom: 11,
  ServiceTier: 12,
  ChildUsage: 13,
  Other: 14,
} as const;
export type KindCode = (typeof Kind)[keyof typeof Kind];
export const KIND_COUNT = 15;

export const Flag = {
  Error: 1,
  ToolOnly: 2,
  Thinking: 4,
  Image: 8,
  ToolCalls: 16,
} as const;

export const KIND_NAMES: readonly string[] = [
  "user",
  "assistant",
  "tool result",
  "bash",
  "custom message",
  "compaction",
  "branch summary",
  "model change",
  "thinking level",
  "label",
  "session info",
  "extension state",
  "service tier",
  "child usage",
  "other",
];

/** What to call an entry and what its line says after the name. Kinds without a code of
 * their own ("other": session state, agent status, git state...) are named by their
 * line, which the kernel starts with the entry's type ("session state: active"). */
export function entryKindName(kind: number, line: string): { name: string; rest: string } {
  if (kind === Kind.Other) {
    const m = /^([a-z][a-z _-]{1,30}?)(?::| ·) (.*)$/.exec(line);
    if (m) return { name: m[1], rest: m[2] };
  }
  return { name: KIND_NAMES[kind] ?? "entry", rest: line };
}

export type Shape = "circle" | "square" | "diamond" | "hexagon" | "triangle" | "triangleDown" | "tag" | "dot";

export interface KindStyle {
  color: string;
  shape: Shape;
  /** Radius in world units at zoom 1. */
  r: number;
}

const GREY = "#7c8799";

export const KIND_STYLES: readonly KindStyle[] = [
  { color: "#2f6fe4", shape: "circle", r: 7 }, // user
  { color: "#1f9d55", shape: "circle", r: 7 }, // assistant
  { color: "#8a94a6", shape: "square", r: 5 }, // tool result
  { color: "#0e9aa7", shape: "square", r: 6 }, // bash
  { color: "#d63384", shape: "diamond", r: 7 }, // custom message
  { color: "#e8590c", shape: "hexagon", r: 8 }, // compaction
  { color: "#7950f2", shape: "diamond", r: 7 }, // branch summary
  { color: "#c99100", shape: "triangle", r: 6 }, // model change
  { color: "#c99100", shape: "triangleDown", r: 6 }, // thinking level
  { color: "#e03160", shape: "tag", r: 5 }, // label
  { color: GREY, shape: "dot", r: 4 }, // session info
  { color: GREY, shape: "square", r: 4 }, // extension state
  { color: GREY, shape: "dot", r: 4 }, // service tier
  { color: GREY, shape: "dot", r: 4 }, // child usage
  { color: GREY, shape: "dot", r: 4 }, // other
];

export const COLORS = {
  error: "#e03131",
  search: "#fcc419",
  compaction: "#e8590c",
  label: "#e03160",
  problem: "#d9480f",
};

export const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type FilterMode = (typeof FILTERS)[number];

export const VIEWS = ["tree", "branches", "transcript"] as const;
export type ViewMode = (typeof VIEWS)[number];

/** Kinds the agent's tree view treats as bookkeeping (hidden by "default"). */
export const BOOKKEEPING: ReadonlySet<number> = new Set([
  Kind.Label,
  Kind.Custom,
  Kind.ModelChange,
  Kind.ThinkingChange,
  Kind.ServiceTier,
  Kind.SessionInfo,
  Kind.ChildUsage,
]);
