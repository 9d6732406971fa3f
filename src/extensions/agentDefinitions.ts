// Subagent definitions, in Claude Code's format: a Markdown file
// with YAML frontmatter (name, description, optional tools as a comma list or
// a YAML list, optional model: `inherit` or provider/model) whose body is the
// subagent's system prompt. From the project's `.rt/agents/` and
// `.claude/agents/` (trusted folders only: a repository's prompt and tool list
// would steer the agent) and the user's `~/.config/rt/agents/` and
// `~/.claude/agents/`; the first found of a name wins (project before user,
// rt's directory before Claude's), and a file may replace a built-in.
//
// Built-ins: general-purpose (the parent's tools), Explore and Plan (read-only:
// read, open, grep, find, ls and the shell, in the read-only sandbox).
import fs from "node:fs";
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { packageRoot } from "../base/packageRoot.js";
import { parseFrontmatter, readDefinitionDir } from "./definitionFiles.js";
import { readableDefinitionDirs } from "./definitionDirs.js";
import { rtToolName } from "./claudeToolNames.js";

export interface AgentDefinition {
  name: string;
  description: string;
  /** rt tool names; undefined: the parent's tools. */
  tools?: string[];
  /** "provider/model"; undefined: the parent's model (`inherit`). */
  model?: string;
  /** The subagent's system prompt. */
  prompt: string;
  /** Runs in the safe-read-only profile: only read-only tools, the shell in the read-only sandbox. */
  readOnly: boolean;
  origin: "builtin" | "project" | "user";
  file?: string;
  /** What in the file rt could not honour as written (said by `rt agents`). */
  notes: string[];
}

export interface AgentsLoad {
  agents: AgentDefinition[];
  problems: Array<{ file: string; message: string }>;
  untrustedProjectDirs: string[];
}

/** What Explore and Plan may use. */
export const READ_ONLY_AGENT_TOOLS = ["read", "open", "grep", "find", "ls", "bash"];

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Claude Code's model aliases: rt has no such names, so these run on the session's model. */
const CLAUDE_MODEL_ALIASES = new Set(["sonnet", "opus", "haiku"]);

function builtinPrompt(file: string): string {
  return fs.readFileSync(path.join(packageRoot(), "prompts", "agents", file), "utf8").trim();
}

export function builtinAgents(): AgentDefinition[] {
  return [
    {
      name: "general-purpose",
      description:
        "For complex, multi-step tasks: researching a question across the codebase, or making a change on its own, with every tool the main agent has.",
      prompt: builtinPrompt("general-purpose.md"),
      readOnly: false,
      origin: "builtin",
      notes: [],
    },
    {
      name: "Explore",
      description:
        "Fast read-only search of the codebase: finding files, definitions and usages, answering how something works, with file:line references. Say how thorough to be.",
      tools: READ_ONLY_AGENT_TOOLS,
      prompt: builtinPrompt("explore.md"),
      readOnly: true,
      origin: "builtin",
      notes: [],
    },
    {
      name: "Plan",
      description:
        "Read-only investigation that returns a step-by-step implementation plan (files, functions, changes, verification).",
      tools: READ_ONLY_AGENT_TOOLS,
      prompt: builtinPrompt("plan.md"),
      readOnly: true,
      origin: "builtin",
      notes: [],
    },
  ];
}

function toolsOf(value: unknown): string[] | undefined | { error: string } {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : undefined;
  if (!items || items.some((t) => typeof t !== "string"))
    return { error: "tools must be a comma-separated list or a YAML list of tool names" };
  const names = (items as string[]).map((t) => t.trim()).filter(Boolean);
  if (names.length === 1 && names[0] === "*") return undefined;
  return [...new Set(names.map(rtToolName))];
}

/** One file's definition, or why it is not one. */
async function parseAgentFile(
  file: string,
  text: string,
  origin: "project" | "user",
): Promise<AgentDefinition | { error: string }> {
  const parsed = await parseFrontmatter(text);
  if ("error" in parsed) return parsed;
  const { meta, body } = parsed;
  const name = typeof meta.name === "string" ? meta.name.trim() : path.basename(file, ".md");
  if (!NAME_PATTERN.test(name)) return { error: `name "${name}" must be letters, digits, _, . and - (at most 64)` };
  if (typeof meta.description !== "string" || meta.description.trim() === "")
    return { error: "description is missing: it tells the main agent when to use this subagent" };
  const tools = toolsOf(meta.tools);
  if (tools && !Array.isArray(tools)) return tools;
  const notes: string[] = [];
  let model: string | undefined;
  if (meta.model !== undefined && meta.model !== null) {
    if (typeof meta.model !== "string" || meta.model.trim() === "")
      return { error: "model must be inherit or provider/model" };
    const m = meta.model.trim();
    if (m === "inherit") model = undefined;
    else if (CLAUDE_MODEL_ALIASES.has(m))
      notes.push(`model "${m}" is a Claude Code alias: the session's model is used`);
    else if (!m.includes("/")) return { error: `model "${m}" must be inherit or provider/model (as with --model)` };
    else model = m;
  }
  if (body.trim() === "") return { error: "the body (the subagent's system prompt) is empty" };
  return {
    name,
    description: meta.description.trim(),
    ...(tools ? { tools } : {}),
    ...(model ? { model } : {}),
    prompt: body.trim(),
    readOnly: false,
    origin,
    file,
    notes,
  };
}

/** The built-ins and every definition of the workspace (the project's only when the folder is trusted). */
export async function loadAgentDefinitions(ws: Workspace): Promise<AgentsLoad> {
  const { readable, untrusted } = await readableDefinitionDirs(ws, "agents");
  const out: AgentsLoad = { agents: [], problems: [], untrustedProjectDirs: untrusted };
  const seen = new Set<string>();
  for (const { dir, origin } of readable) {
    const read = readDefinitionDir(dir, [".md"], origin === "project");
    out.problems.push(...read.problems);
    for (const f of read.files) {
      const def = await parseAgentFile(f.file, f.text, origin);
      if ("error" in def) {
        out.problems.push({ file: f.file, message: def.error });
        continue;
      }
      if (seen.has(def.name.toLowerCase())) continue;
      seen.add(def.name.toLowerCase());
      out.agents.push(def);
    }
  }
  for (const b of builtinAgents()) if (!seen.has(b.name.toLowerCase())) out.agents.push(b);
  return out;
}

/** The definition a task call names: exactly, else ignoring case ("explore"). */
export function findAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition | undefined {
  return agents.find((a) => a.name === name) ?? agents.find((a) => a.name.toLowerCase() === name.toLowerCase());
}
