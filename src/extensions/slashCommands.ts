// Custom slash commands, in Claude Code's format: a Markdown file
// whose name is the command (`review.md` is /review), with optional YAML
// frontmatter (description, argument-hint, allowed-tools) and a body that
// becomes the prompt, $ARGUMENTS replaced by what follows the command ($1, $2...
// by its words). From the project's `.rt/commands/` and `.claude/commands/`
// (trusted folders only: a repository's prompt could steer the agent and
// pre-approve tools) and the user's `~/.config/rt/commands/` and
// `~/.claude/commands/`; a subdirectory makes a namespace (`git/commit.md` is
// /git:commit). The first found of a name wins: project before user, rt's
// directory before Claude's.
//
// resolveSlashCommand() is the one function a face calls (rt chat, rt run
// /NAME, the full-screen UI): a line in, the prompt to send (or nothing when
// the line is not a custom command).
import fs from "node:fs";
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { parseFrontmatter, readDefinitionDir } from "./definitionFiles.js";
import { rtToolName } from "./claudeToolNames.js";
import { readableDefinitionDirs } from "./definitionDirs.js";

export interface CustomCommand {
  /** Without the slash: "review", "git:commit". */
  name: string;
  description?: string;
  argumentHint?: string;
  /** Tool names the command pre-approves for its turn (bare names only; see allowedTools). */
  allowedTools: string[];
  /** Entries of allowed-tools rt does not honour (argument patterns like Bash(git status:*)). */
  ignoredAllowedTools: string[];
  body: string;
  file: string;
  origin: "project" | "user";
}

export interface CommandsLoad {
  commands: CustomCommand[];
  problems: Array<{ file: string; message: string }>;
  untrustedProjectDirs: string[];
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function allowedToolsOf(value: unknown): { allowed: string[]; ignored: string[] } {
  const items = Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(/,(?![^(]*\))/) : [];
  const allowed: string[] = [];
  const ignored: string[] = [];
  for (const raw of items.map((s) => s.trim()).filter(Boolean)) {
    // A pattern on arguments (Bash(git add:*)) would need rt to match commands; honouring only its tool name would allow far more than it says.
    if (raw.includes("(")) ignored.push(raw);
    else allowed.push(rtToolName(raw));
  }
  return { allowed, ignored };
}

async function readCommands(
  dir: string,
  origin: "project" | "user",
  prefix: string,
  out: CommandsLoad,
  seen: Set<string>,
  depth: number,
): Promise<void> {
  const read = readDefinitionDir(dir, [".md"], origin === "project");
  for (const p of read.problems) out.problems.push(p);
  for (const f of read.files) {
    const base = path.basename(f.file, ".md");
    if (!NAME_PATTERN.test(base)) {
      out.problems.push({ file: f.file, message: "a command's file name is letters, digits, _, . and -" });
      continue;
    }
    const name = `${prefix}${base}`;
    if (seen.has(name)) continue;
    const parsed = await parseFrontmatter(f.text);
    if ("error" in parsed) {
      out.problems.push({ file: f.file, message: parsed.error });
      continue;
    }
    seen.add(name);
    const { allowed, ignored } = allowedToolsOf(parsed.meta["allowed-tools"]);
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    out.commands.push({
      name,
      ...(str(parsed.meta.description) ? { description: str(parsed.meta.description) } : {}),
      ...(str(parsed.meta["argument-hint"]) ? { argumentHint: str(parsed.meta["argument-hint"]) } : {}),
      allowedTools: allowed,
      ignoredAllowedTools: ignored,
      body: parsed.body,
      file: f.file,
      origin,
    });
  }
  if (depth > 0) return;
  // One level of namespaces: DIR/NAME.md is /DIR:NAME.
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.isDirectory() && NAME_PATTERN.test(e.name))
      await readCommands(path.join(dir, e.name), origin, `${prefix}${e.name}:`, out, seen, depth + 1);
  }
}

/** Every custom command of the workspace (the project's only when the folder is trusted). */
export async function loadCustomCommands(ws: Workspace): Promise<CommandsLoad> {
  const { readable, untrusted } = await readableDefinitionDirs(ws, "commands");
  const out: CommandsLoad = { commands: [], problems: [], untrustedProjectDirs: untrusted };
  const seen = new Set<string>();
  for (const { dir, origin } of readable) await readCommands(dir, origin, "", out, seen, 0);
  return out;
}

/**
 * The body with $ARGUMENTS (all of them) and $1...$9 (each word; quoted words keep their spaces) replaced.
 * `given`: the words as the shell already split them (`rt run /review a.py "error handling"`).
 */
export function expandArguments(body: string, args: string, given?: readonly string[]): string {
  // A given word wholly in quotes ('"error handling"', as typed before the shell's words were kept) is unwrapped.
  const words =
    given?.map((w) => /^(["'])([\s\S]*)\1$/.exec(w)?.[2] ?? w) ??
    [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  return body
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$([1-9])\b/g, (_, n: string) => words[Number(n) - 1] ?? "");
}

export interface ResolvedCommand {
  command: CustomCommand;
  /** The prompt to send to the agent. */
  prompt: string;
  /** Tools pre-approved for this prompt's turn. */
  allowedTools: string[];
}

/**
 * What a line typed in a face means when it starts with "/" and names a
 * custom command: the prompt to send. Undefined for any other line (a
 * built-in command, plain text, an unknown command). `words`: the arguments
 * as separate words already (a command line's, split by the shell), which
 * $1..$9 take as they are; the line's arguments are split at spaces otherwise,
 * quotes keeping words together.
 */
export function resolveSlashCommand(
  line: string,
  commands: readonly CustomCommand[],
  words?: readonly string[],
): ResolvedCommand | undefined {
  const m = /^\/([^\s]+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  if (!command) return undefined;
  const args = (m[2] ?? "").trim();
  let prompt = expandArguments(command.body, args, words).trim();
  // A command that does not say where its arguments go gets them at the end (as Claude Code does).
  if (args && !/\$ARGUMENTS\b|\$[1-9]\b/.test(command.body)) prompt = `${prompt}\n\n${args}`;
  return { command, prompt, allowedTools: command.allowedTools };
}

/** Lines for /help: each command, its argument hint and description. */
export function describeCommands(commands: readonly CustomCommand[]): string {
  return [...commands]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(
      (c) =>
        `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`.padEnd(27) +
        ` ${c.description ?? `(${c.origin}: ${path.basename(c.file)})`}`,
    )
    .join("\n");
}
