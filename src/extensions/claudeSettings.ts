// The hooks of Claude Code's settings files, for rt's agent: the user's
// `~/.claude/settings.json`, and the project's `.claude/settings.json` and
// `.claude/settings.local.json`. Only their `hooks` key is read (their
// permissions, env and model are Claude Code's own business). The project's
// files come with the repository and run programs, so they are read only while
// the folder is trusted and neither of them changed since (extensionPins.ts
// pins both); until then rt says once, on standard error, that their hooks do
// not run. A project file is never read through a symbolic link (neither the
// file nor `.claude`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readRegularFile } from "./definitionFiles.js";
import { parseHooks, type HookConfig, type HookProblem } from "./hooks.js";
import { projectExtensionsTrusted } from "../base/config.js";
import { noticeOnce, shellQuotePath } from "../base/configTrust.js";

/** The project's Claude Code settings files, relative to the root (the trust pins them). */
export const PROJECT_CLAUDE_SETTINGS: readonly string[] = [".claude/settings.json", ".claude/settings.local.json"];

export interface ClaudeSettingsHooks {
  configs: HookConfig[];
  problems: HookProblem[];
  /** Project files with hooks that were not read: the folder is not trusted (or they changed since). */
  untrusted: string[];
}

/** The `hooks` of a settings file's text (undefined when it has none), or why the file is not usable. */
function hooksOf(text: string): { hooks?: unknown } | { error: string } {
  if (text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { error: `not valid JSON (${(e as Error).message})` };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { error: "must hold a JSON object" };
  return { hooks: (data as { hooks?: unknown }).hooks };
}

/** Reads one settings file; a missing file is no hooks and no problem. */
function readSettings(file: string, label: string, project: boolean, out: ClaudeSettingsHooks): void {
  let text: string;
  try {
    text = readRegularFile(file, project);
  } catch (e) {
    if (/\(ENOENT\)|\(ENOTDIR\)/.test((e as Error).message)) return;
    out.problems.push({ source: label, where: "(file)", message: (e as Error).message });
    return;
  }
  const parsed = hooksOf(text);
  if ("error" in parsed) {
    out.problems.push({ source: label, where: "(file)", message: parsed.error });
    return;
  }
  const { config, problems } = parseHooks(parsed.hooks, { source: label, claude: true });
  out.configs.push(config);
  out.problems.push(...problems);
}

/** Whether a project file has hooks (read only to say that they wait for trust; nothing of it is used). */
function hasHooks(file: string): boolean {
  try {
    const parsed = hooksOf(readRegularFile(file, true));
    return "hooks" in parsed && typeof parsed.hooks === "object" && parsed.hooks !== null;
  } catch {
    return false;
  }
}

/** The hooks of the user's and (trusted folders only) the project's Claude Code settings files. */
export function loadClaudeSettingsHooks(ws: { root: string; env: NodeJS.ProcessEnv }): ClaudeSettingsHooks {
  const out: ClaudeSettingsHooks = { configs: [], problems: [], untrusted: [] };
  const home = ws.env.HOME || os.homedir();
  readSettings(path.join(home, ".claude", "settings.json"), "~/.claude/settings.json", false, out);

  const claudeDir = path.join(ws.root, ".claude");
  let dir: fs.Stats | undefined;
  try {
    dir = fs.lstatSync(claudeDir);
  } catch {
    return out;
  }
  if (!dir.isDirectory()) {
    if (dir.isSymbolicLink())
      out.problems.push({
        source: ".claude",
        where: "(directory)",
        message: "a symbolic link; rt does not read a project's settings through one",
      });
    return out;
  }
  const files = PROJECT_CLAUDE_SETTINGS.map((rel) => ({ rel, abs: path.join(ws.root, ...rel.split("/")) })).filter(
    (f) => fs.existsSync(f.abs) || isLink(f.abs),
  );
  if (!files.length) return out;
  if (!projectExtensionsTrusted(ws)) {
    out.untrusted = files.filter((f) => hasHooks(f.abs)).map((f) => f.rel);
    if (out.untrusted.length)
      noticeOnce(
        `claude-settings\0${ws.root}\0${out.untrusted.join(",")}`,
        `rt: not running the hooks of ${out.untrusted.join(" and ")} until you trust this folder: ` +
          `rt trust ${shellQuotePath(ws.root)}\n`,
      );
    return out;
  }
  for (const f of files) readSettings(f.abs, f.rel, true, out);
  return out;
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
