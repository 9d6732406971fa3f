// How rt's agent events read as ACP session updates: pure functions from an
// event (and the workspace root, since ACP paths are absolute) to the
// `session/update` payloads an editor shows. Nothing here talks to the client.
import path from "node:path";
import type { AgentStreamEvent, TodoItem } from "../../agent/events.js";
import type { ApprovalMode } from "../../agent/approval.js";
import { describeCall } from "../../agent/approval.js";

/** ACP's tool kinds, as the editor picks an icon and a layout by them. */
export type AcpToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "switch_mode"
  | "other";

const KINDS: Record<string, AcpToolKind> = {
  read: "read",
  open: "read",
  scroll: "read",
  ls: "read",
  symbols: "read",
  lsp: "read",
  sql_tables: "read",
  sql_describe: "read",
  find: "search",
  grep: "search",
  grep_file: "search",
  ast_grep: "search",
  mcp_search: "search",
  web_search: "fetch",
  web_fetch: "fetch",
  edit: "edit",
  multi_edit: "edit",
  edit_lines: "edit",
  edit_range: "edit",
  insert_at: "edit",
  edit_file: "edit",
  write: "edit",
  notebook_edit: "edit",
  undo_edit: "edit",
  write_output: "edit",
  bash: "execute",
  bash_output: "execute",
  kill_shell: "execute",
  sql_query: "execute",
  todo_write: "think",
  task: "think",
  exit_plan_mode: "switch_mode",
};

export function toolKind(name: string): AcpToolKind {
  return KINDS[name] ?? "other";
}

/** The files a call names, as absolute paths inside the root, with a line where the call gives one. */
export function toolLocations(args: unknown, root: string): Array<{ path: string; line?: number }> {
  if (!args || typeof args !== "object") return [];
  const a = args as Record<string, unknown>;
  const p = typeof a.path === "string" ? a.path : typeof a.file_path === "string" ? a.file_path : undefined;
  if (!p || p.includes("\0")) return [];
  // `open` takes PATH:LINE and PATH:START-END in its path.
  const m = /^(.*?):(\d+)(?:-\d+)?$/.exec(p);
  const file = m && m[1] ? m[1] : p;
  const abs = path.resolve(root, file);
  const inside = abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  if (!inside) return [];
  const line = m
    ? Number(m[2])
    : typeof a.start_line === "number"
      ? a.start_line
      : typeof a.offset === "number"
        ? a.offset
        : undefined;
  return [{ path: abs, ...(line !== undefined && Number.isInteger(line) && line > 0 ? { line } : {}) }];
}

/** The one-line title of a call: `grep "def add" src`, `bash: npm test`. */
export function toolTitle(name: string, args: unknown): string {
  return describeCall(name, args);
}

/** The todo list as an ACP plan. */
export function planEntries(
  todos: readonly TodoItem[],
): Array<{ content: string; priority: "medium"; status: TodoItem["status"] }> {
  return todos.map((t) => ({ content: t.content, priority: "medium", status: t.status }));
}

/** The approval modes an editor can switch between, in the order they are offered. */
export const ACP_MODES: ReadonlyArray<{ id: ApprovalMode; name: string; description: string }> = [
  { id: "ask", name: "Ask", description: "reading is free; edits and commands ask first" },
  { id: "auto-edit", name: "Accept edits", description: "edits are applied (undoable with rt undo); commands ask" },
  { id: "plan", name: "Plan", description: "read-only tools only: the agent describes changes instead of making them" },
  { id: "auto", name: "Auto", description: "everything runs without asking (the profile and its sandbox still apply)" },
  { id: "never", name: "Never ask", description: "what needs approval is refused, and the agent is told" },
];

export type AcpUpdate = Record<string, unknown> & { sessionUpdate: string };

/**
 * The updates one agent event becomes. Tool calls open as `in_progress` when
 * they start and close as `completed` or `failed`; an edit's diff is added by
 * the caller, which can read the file (see run.ts).
 */
export function eventUpdates(ev: AgentStreamEvent, root: string): AcpUpdate[] {
  const sub = ev.parent_tool_use_id !== undefined ? { _meta: { parentToolCallId: ev.parent_tool_use_id } } : {};
  switch (ev.type) {
    case "text":
      return ev.delta
        ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: ev.delta }, ...sub }]
        : [];
    case "reasoning":
      return ev.delta
        ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: ev.delta }, ...sub }]
        : [];
    case "tool_start":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: ev.id,
          title: toolTitle(ev.name, ev.args),
          kind: toolKind(ev.name),
          status: "in_progress",
          locations: toolLocations(ev.args, root),
          rawInput: ev.args,
          ...sub,
        },
      ];
    case "tool_end":
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: ev.id,
          status: ev.success ? "completed" : "failed",
          content: [
            { type: "content", content: { type: "text", text: ev.success ? ev.output : (ev.error ?? ev.output) } },
          ],
          ...sub,
        },
      ];
    case "tool_blocked":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: ev.id,
          title: toolTitle(ev.name, ev.args),
          kind: toolKind(ev.name),
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: ev.reason } }],
          ...sub,
        },
      ];
    case "todos":
      return [{ sessionUpdate: "plan", entries: planEntries(ev.todos) }];
    case "notice":
      return [
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n[rt] ${ev.message}\n` }, ...sub },
      ];
    default:
      return [];
  }
}

/** How a turn's last event reads as an ACP stop reason; undefined: the turn failed and the prompt request errs. */
export function stopReasonOf(
  ev: AgentStreamEvent | undefined,
): "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled" | undefined {
  if (!ev) return undefined;
  if (ev.type === "turn_complete") return "end_turn";
  if (ev.type !== "error") return undefined;
  switch (ev.kind) {
    case "interrupted":
      return "cancelled";
    case "max_turns":
      return "max_turn_requests";
    case "length":
      return "max_tokens";
    case "refusal":
    case "content_filter":
      return "refusal";
    default:
      return undefined;
  }
}
