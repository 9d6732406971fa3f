// `#NOTE` at the prompt (Claude Code's memory habit): the note is appended as
// a list item to a memory file rt reads into its system prompt, the one the
// user picks: the project's instructions file (AGENTS.md, or CLAUDE.md when
// that is the one rt reads in this project) or the user's own
// (~/.config/rt/AGENTS.md, read in every project). The project's file is
// written through the workspace's confined writer, the user's through a
// confined writer of their configuration directory; both atomically.
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { confinedAt } from "../workspace/confinedFs.js";
import { userConfigDir } from "../base/trustStore.js";
import { PROJECT_INSTRUCTION_FILES, USER_INSTRUCTIONS_FILE, projectInstructionsFile } from "./prompts.js";
import { MEMORY_FILE_MAX_BYTES, MEMORY_NOTE_MAX_CHARS } from "../base/limits.js";

export type MemoryScope = "project" | "user";

/** Where a scope's note goes: the file, as shown to the user, and its absolute path. */
export function memoryTarget(ws: Workspace, scope: MemoryScope): { shown: string; abs: string } {
  if (scope === "project") {
    const name = projectInstructionsFile(ws.root) ?? PROJECT_INSTRUCTION_FILES[0];
    return { shown: name, abs: path.join(ws.root, name) };
  }
  const abs = path.join(userConfigDir(ws.env), USER_INSTRUCTIONS_FILE);
  const home = ws.env.HOME;
  return { shown: home && abs.startsWith(`${home}/`) ? `~/${abs.slice(home.length + 1)}` : abs, abs };
}

export class MemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryError";
  }
}

/**
 * Appends `note` (one line; leading `#`s and spaces dropped) as `- note` to the
 * scope's memory file, creating it when missing. MemoryError for an empty or
 * too long note, or a file rt cannot append to; nothing is written then.
 */
export function appendMemory(ws: Workspace, scope: MemoryScope, note: string): { file: string } {
  const text = note
    .replace(/^[#\s]+/, "")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") throw new MemoryError("the note is empty: type # and then what rt should remember");
  if (text.length > MEMORY_NOTE_MAX_CHARS)
    throw new MemoryError(`the note is ${text.length} characters; a memory note is at most ${MEMORY_NOTE_MAX_CHARS}`);
  const target = memoryTarget(ws, scope);
  const fsys = scope === "project" ? { writer: ws.writer, rel: [path.basename(target.abs)] } : userWriter(target.abs);
  let before: Buffer | undefined;
  try {
    before = fsys.writer.readFile(fsys.rel, { maxBytes: MEMORY_FILE_MAX_BYTES });
  } catch (e) {
    throw new MemoryError(`${target.shown}: ${(e as Error).message}`);
  }
  const old = before?.toString("utf8") ?? "";
  const sep = old === "" || old.endsWith("\n") ? "" : "\n";
  try {
    fsys.writer.writeAtomic(fsys.rel, `${old}${sep}- ${text}\n`, { mkdirs: true, dirMode: 0o700 });
  } catch (e) {
    throw new MemoryError(`${target.shown}: ${(e as Error).message}`);
  }
  return { file: target.shown };
}

function userWriter(abs: string) {
  return { writer: confinedAt(path.dirname(abs)), rel: [path.basename(abs)] };
}
