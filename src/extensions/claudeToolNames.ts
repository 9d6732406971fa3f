// Claude Code's tool names, as rt names the same tools: command and agent
// files written for Claude Code (allowed-tools, tools) name them this way.
import path from "node:path";

export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
  Bash: "bash",
  Read: "read",
  Edit: "edit",
  MultiEdit: "multi_edit",
  Write: "write",
  Grep: "grep",
  Glob: "find",
  LS: "ls",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
  NotebookEdit: "notebook_edit",
  NotebookRead: "read",
  TodoWrite: "todo_write",
  Task: "task",
  AskUserQuestion: "ask_user",
  ExitPlanMode: "exit_plan_mode",
  BatchTool: "batch",
  BashOutput: "bash_output",
  KillShell: "kill_shell",
  KillBash: "kill_shell",
};

/** rt's name for a tool named in a Claude Code file (rt's own names pass through). */
export function rtToolName(name: string): string {
  return CLAUDE_TOOL_NAMES[name] ?? name;
}

// The other direction, for Claude Code's hooks (hooks.ts): a hook written for
// Claude Code matches `Bash` or `Edit|Write` and reads tool_input.file_path or
// tool_input.command. Each rt tool that does the job of one of Claude Code's is
// shown to such a hook under that tool's name, with Claude Code's argument
// names (and its units: Bash's timeout in milliseconds; file paths absolute, as
// Claude Code's tools take them). rt's other arguments are passed as they are.
// Every tool that changes a file by its text is shown as Edit (or Write, for
// whole-file writers), so that a hook guarding files (".env is off limits")
// sees every way rt's agent can change one.

/** How one rt tool looks to a Claude Code hook: the name, and rt's argument → Claude Code's argument. */
interface ClaudeView {
  name: string;
  rename: Readonly<Record<string, string>>;
}

const FILE_PATH = { path: "file_path" } as const;
const EDIT_VIEW: ClaudeView = { name: "Edit", rename: FILE_PATH };
const GREP_VIEW: ClaudeView = {
  name: "Grep",
  rename: {
    ignore_case: "-i",
    show_line_numbers: "-n",
    context: "-C",
    context_before: "-B",
    context_after: "-A",
    limit: "head_limit",
  },
};

const CLAUDE_VIEWS: Readonly<Record<string, ClaudeView>> = {
  bash: { name: "Bash", rename: { background: "run_in_background" } },
  read: { name: "Read", rename: FILE_PATH },
  open: { name: "Read", rename: FILE_PATH },
  scroll: { name: "Read", rename: FILE_PATH },
  edit: EDIT_VIEW,
  edit_lines: EDIT_VIEW,
  edit_range: EDIT_VIEW,
  insert_at: EDIT_VIEW,
  undo_edit: EDIT_VIEW,
  edit_file: { name: "Edit", rename: { path: "file_path", old: "old_string", new: "new_string" } },
  multi_edit: { name: "MultiEdit", rename: FILE_PATH },
  write: { name: "Write", rename: FILE_PATH },
  write_output: { name: "Write", rename: FILE_PATH },
  grep: GREP_VIEW,
  grep_file: GREP_VIEW,
  find: { name: "Glob", rename: {} },
  ls: { name: "LS", rename: {} },
  web_fetch: { name: "WebFetch", rename: {} },
  web_search: { name: "WebSearch", rename: {} },
  notebook_edit: { name: "NotebookEdit", rename: { path: "notebook_path" } },
  todo_write: { name: "TodoWrite", rename: {} },
  task: { name: "Task", rename: {} },
  ask_user: { name: "AskUserQuestion", rename: {} },
  exit_plan_mode: { name: "ExitPlanMode", rename: {} },
  bash_output: { name: "BashOutput", rename: { id: "bash_id" } },
  kill_shell: { name: "KillShell", rename: { id: "shell_id" } },
};

/** rt's tools that Claude Code's hooks see under a name of Claude Code's. */
export const RT_TOOLS_WITH_CLAUDE_NAMES: readonly string[] = Object.keys(CLAUDE_VIEWS);

/** The arguments that hold a path Claude Code's tool takes absolute. */
const ABSOLUTE_ARGS = new Set(["file_path", "notebook_path"]);
/** Claude Code's tools whose `path` is absolute (LS); Grep's and Glob's may be relative. */
const ABSOLUTE_PATH_TOOLS = new Set(["LS"]);

/** The name a Claude Code hook sees for an rt tool: Claude Code's for the tools it has, rt's own otherwise (sql_query). */
export function claudeToolName(rtName: string): string {
  return Object.hasOwn(CLAUDE_VIEWS, rtName) ? CLAUDE_VIEWS[rtName].name : rtName;
}

/** Whether a hook's matcher names one of Claude Code's tools (then the hook is one written for Claude Code). */
export function namesClaudeTool(test: (name: string) => boolean): boolean {
  return Object.keys(CLAUDE_TOOL_NAMES).some(test);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function absolute(root: string, p: unknown): unknown {
  return typeof p === "string" && p !== "" ? path.resolve(root, p) : p;
}

/** An rt tool's arguments as the Claude Code tool it stands for takes them. */
export function toClaudeInput(rtName: string, args: unknown, root: string): unknown {
  const view = Object.hasOwn(CLAUDE_VIEWS, rtName) ? CLAUDE_VIEWS[rtName] : undefined;
  if (!view || !isObject(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    const name = Object.hasOwn(view.rename, k) ? view.rename[k] : k;
    out[name] =
      ABSOLUTE_ARGS.has(name) || (name === "path" && ABSOLUTE_PATH_TOOLS.has(view.name)) ? absolute(root, v) : v;
  }
  if (view.name === "Bash" && typeof out.timeout === "number") out.timeout = out.timeout * 1000;
  return out;
}

/** Arguments a Claude Code hook gave back (updatedInput) as the rt tool takes them (names, units, relative paths). */
export function fromClaudeInput(rtName: string, input: Record<string, unknown>, root: string): Record<string, unknown> {
  const view = Object.hasOwn(CLAUDE_VIEWS, rtName) ? CLAUDE_VIEWS[rtName] : undefined;
  if (!view) return input;
  const back = Object.fromEntries(Object.entries(view.rename).map(([rt, claude]) => [claude, rt]));
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const name = Object.hasOwn(back, k) ? back[k] : k;
    const isPath = ABSOLUTE_ARGS.has(k) || (k === "path" && ABSOLUTE_PATH_TOOLS.has(view.name));
    out[name] =
      isPath && typeof v === "string" && (v === root || v.startsWith(prefix)) ? v.slice(prefix.length) || "." : v;
  }
  if (view.name === "Bash" && typeof out.timeout === "number") out.timeout = out.timeout / 1000;
  return out;
}
