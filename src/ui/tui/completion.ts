// Completion in the prompt: slash commands at the start of the input, and
// `@path` of workspace files anywhere (found by the `find` tool, so .gitignore
// and the workspace's confinement apply as for the agent).
import type { Workspace } from "../../workspace/workspace.js";
import { callTool } from "../../tools/policy.js";

export interface SlashCommand {
  name: string;
  args?: string;
  help: string;
}

/** The UI's own commands, in the order /help lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "/help", help: "the keys and these commands" },
  { name: "/model", args: "[provider/model]", help: "show the model, or switch to another one" },
  { name: "/approval", args: "[mode]", help: "show or change the approval mode: ask, auto-edit, auto, never, plan" },
  { name: "/compact", args: "[instructions]", help: "summarize the conversation now (instructions guide the summary)" },
  { name: "/clear", help: "start again from an empty context (the session log keeps everything)" },
  { name: "/sessions", help: "list this project's sessions" },
  { name: "/resume", args: "ID", help: "continue another session of this project" },
  {
    name: "/rewind",
    help: "go back to before one of this session's prompts: code, conversation or both (also Esc twice)",
  },
  { name: "/export", args: "[NAME]", help: "write this session as Markdown to the output directory (.rt/out/)" },
  { name: "/cost", help: "tokens and cost of this session" },
  { name: "/todos", help: "the agent's todo list" },
  { name: "/agents", help: "the subagent types the agent's task tool can start" },
  { name: "/expand", help: "expand or collapse long results, reasoning and subagents (also Ctrl-O)" },
  { name: "/quit", help: "quit (also /exit, Ctrl-D on an empty prompt, Ctrl-C twice)" },
  { name: "/exit", help: "quit" },
];

export interface Completion {
  /** Where the completed word starts on the cursor's line. */
  start: number;
  candidates: Array<{ value: string; note?: string }>;
}

/** Candidates for a slash command typed at the start of the prompt (custom commands included). */
export function slashCandidates(
  word: string,
  custom: ReadonlyArray<{ name: string; description?: string }>,
): Completion["candidates"] {
  const all = [
    ...SLASH_COMMANDS.map((c) => ({ value: c.name, note: c.help })),
    ...custom.map((c) => ({ value: `/${c.name}`, note: c.description ?? "custom command" })),
  ];
  return all.filter((c) => c.value.startsWith(word));
}

/** Workspace files for `@partial`: the `find` tool's matches, as `@path` candidates. */
export async function pathCandidates(ws: Workspace, partial: string, limit = 20): Promise<Completion["candidates"]> {
  const pattern = partial === "" ? "*" : partial.includes("/") && partial.endsWith("/") ? `${partial}**` : partial;
  const r = await callTool(ws, "find", { pattern, limit: 200 });
  if (!r.success) return [];
  const files = (r as { files?: unknown }).files;
  const paths = Array.isArray(files) ? files.filter((f): f is string => typeof f === "string") : [];
  // Names that start with what was typed come first, then the rest in path order.
  const starts = (p: string) => p.startsWith(partial) || p.split("/").pop()!.startsWith(partial);
  return [...paths.filter(starts), ...paths.filter((p) => !starts(p))].slice(0, limit).map((p) => ({ value: `@${p}` }));
}

/** The longest prefix shared by every candidate (what Tab inserts when there are several). */
export function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return "";
  let prefix = values[0];
  for (const v of values) while (!v.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
