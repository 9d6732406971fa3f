// Claude Code's tool names, as rt names the same tools: command and agent
// files written for Claude Code (allowed-tools, tools) name them this way.
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
