// The system prompt: markdown files shipped in the package (prompts/system.md,
// then the guidance of the protocol in use: tools.md or text.md), a few facts
// about the workspace, the user's own instructions (~/.config/rt/AGENTS.md)
// and the project's (AGENTS.md, else CLAUDE.md) when there are some.
import fs from "node:fs";
import path from "node:path";
import type { Protocol } from "./events.js";
import { packageRoot } from "../base/packageRoot.js";
import { resolveInside } from "../workspace/paths.js";
import { userConfigDir } from "../base/trustStore.js";

/** Project instruction files, in order of preference: the first one present is used. */
export const PROJECT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
/** A project file longer than this is cut (it is read on every request). */
const PROJECT_INSTRUCTIONS_MAX_CHARS = 40_000;

function promptFile(name: string): string {
  return fs.readFileSync(path.join(packageRoot(), "prompts", name), "utf8").trim();
}

export interface PromptContext {
  root: string;
  protocol: Protocol;
  profile: string;
  /** Plan mode: read-only tools only. */
  plan: boolean;
  /** Tool names the model is offered (native tools) or may use as JSON actions (text mode). */
  toolNames: string[];
  /** The environment, to find the user's own instructions (~/.config/rt/AGENTS.md); without it none are read. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The date the process started: the system prompt says it, and stays the same for the whole
 * process, so a session crossing midnight keeps its prompt (and its prompt cache) byte for byte.
 */
const TODAY = new Date().toISOString().slice(0, 10);

function environment(ctx: PromptContext): string {
  const lines = [
    "# Environment",
    "",
    `- Project root (every path is relative to it): ${ctx.root}`,
    `- Git repository: ${fs.existsSync(path.join(ctx.root, ".git")) ? "yes" : "no"}`,
    `- Platform: ${process.platform}; today: ${TODAY}`,
    `- rt profile: ${ctx.profile}${ctx.profile === "safe-read-only" ? " (nothing may be modified; commands run in a read-only sandbox)" : ""}`,
  ];
  if (ctx.protocol === "text") lines.push(`- JSON actions available: ${ctx.toolNames.join(", ")}`);
  if (ctx.plan) {
    lines.push(
      "",
      "# Plan mode",
      "",
      "You are in plan mode: investigate with read-only tools only and do not change anything. End with a concrete, step-by-step plan (files, functions, the changes to make, how to verify them) for the user to approve.",
    );
  }
  return lines.join("\n");
}

/** UTF-8 takes at most 4 bytes a character: this many bytes hold PROJECT_INSTRUCTIONS_MAX_CHARS characters, and one more tells that the file is longer. */
const PROJECT_INSTRUCTIONS_MAX_BYTES = 4 * PROJECT_INSTRUCTIONS_MAX_CHARS + 1;

/** The first `max` bytes of a regular file (a FIFO or device is refused without blocking), and whether it holds more. */
function readHead(file: string, max: number): { bytes: Buffer; more: boolean } | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return undefined;
    const buf = Buffer.alloc(Math.min(max, st.size));
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: buf.subarray(0, got), more: st.size > got };
  } finally {
    fs.closeSync(fd);
  }
}

/** The text of an instructions file as the prompt takes it: cut at PROJECT_INSTRUCTIONS_MAX_CHARS. */
function instructionsText(head: { bytes: Buffer; more: boolean }): string {
  let text = head.bytes.toString("utf8");
  if (text.length > PROJECT_INSTRUCTIONS_MAX_CHARS || head.more)
    text = `${text.slice(0, PROJECT_INSTRUCTIONS_MAX_CHARS)}\n[... cut: the file is longer]`;
  return text.trim();
}

/** The project's AGENTS.md (or CLAUDE.md), if present. */
export function projectInstructions(root: string): { file: string; text: string } | undefined {
  for (const name of PROJECT_INSTRUCTION_FILES) {
    let head: { bytes: Buffer; more: boolean } | undefined;
    try {
      // As for every path rt reads: a symlink leading out of the root (a cloned repository's
      // AGENTS.md -> ~/.ssh/id_rsa) is not followed, and only a regular file is read, only as
      // far as the prompt uses it (a repository's AGENTS.md may be gigabytes; it is read on every request).
      const file = resolveInside(root, name);
      if (!file.exists) continue;
      head = readHead(file.abs, PROJECT_INSTRUCTIONS_MAX_BYTES);
      if (!head) continue;
    } catch {
      continue;
    }
    return { file: name, text: instructionsText(head) };
  }
  return undefined;
}

/** The name of the project instructions file rt reads in `root` (the first present), if any. */
export function projectInstructionsFile(root: string): string | undefined {
  return projectInstructions(root)?.file;
}

/** The user's own instructions, read in every project: this file in rt's configuration directory. */
export const USER_INSTRUCTIONS_FILE = "AGENTS.md";

/** The user's ~/.config/rt/AGENTS.md (where `#` notes of the user's memory go), if present. */
export function userInstructions(env: NodeJS.ProcessEnv): { file: string; text: string } | undefined {
  const file = path.join(userConfigDir(env), USER_INSTRUCTIONS_FILE);
  try {
    const head = readHead(file, PROJECT_INSTRUCTIONS_MAX_BYTES);
    if (!head) return undefined;
    const text = instructionsText(head);
    return text ? { file, text } : undefined;
  } catch {
    return undefined;
  }
}

export function systemPrompt(ctx: PromptContext): string {
  const parts = [promptFile("system.md"), promptFile(ctx.protocol === "text" ? "text.md" : "tools.md")];
  if (ctx.toolNames.includes("task") || ctx.toolNames.includes("todo_write")) parts.push(promptFile("tasks.md"));
  parts.push(environment(ctx));
  const user = ctx.env ? userInstructions(ctx.env) : undefined;
  if (user) parts.push(`# The user's own instructions (${user.file})\n\n${user.text}`);
  const project = projectInstructions(ctx.root);
  if (project) parts.push(`# Project instructions (${project.file})\n\n${project.text}`);
  return `${parts.join("\n\n")}\n`;
}

/**
 * A subagent's system prompt: its definition's (the Markdown body, or a
 * built-in's), the text protocol's guidance when it works in text mode, and the
 * environment. The project's AGENTS.md is left to the main agent, which passes
 * on what the task needs.
 */
export function subagentSystemPrompt(definition: string, ctx: PromptContext): string {
  const parts = [definition.trim()];
  if (ctx.protocol === "text") parts.push(promptFile("text.md"));
  parts.push(environment(ctx));
  return `${parts.join("\n\n")}\n`;
}
