// The folders of Claude Code's Markdown definitions (custom commands, subagent
// types): the project's `.rt/KIND/` and `.claude/KIND/`, then the user's
// `~/.config/rt/KIND/` and `~/.claude/KIND/`, in the order they win; and which
// of them may be read now (a project's only once its folder is trusted: a
// repository's prompts would steer the agent).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { userConfigDir } from "../base/trustStore.js";
import { projectTrusted } from "./customTools.js";

export interface DefinitionDir {
  dir: string;
  origin: "project" | "user";
}

export function definitionDirs(ws: Workspace, kind: "commands" | "agents"): DefinitionDir[] {
  const home = ws.env.HOME || os.homedir();
  return [
    { dir: path.join(ws.root, ".rt", kind), origin: "project" },
    { dir: path.join(ws.root, ".claude", kind), origin: "project" },
    { dir: path.join(userConfigDir(ws.env), kind), origin: "user" },
    { dir: path.join(home, ".claude", kind), origin: "user" },
  ];
}

/** The folders to read, in order, and the project's folders that exist but wait for trust (to say so). */
export async function readableDefinitionDirs(
  ws: Workspace,
  kind: "commands" | "agents",
): Promise<{ readable: DefinitionDir[]; untrusted: string[] }> {
  const trusted = await projectTrusted(ws);
  const readable: DefinitionDir[] = [];
  const untrusted: string[] = [];
  for (const d of definitionDirs(ws, kind)) {
    if (d.origin === "user" || trusted) readable.push(d);
    else if (fs.existsSync(d.dir)) untrusted.push(d.dir);
  }
  return { readable, untrusted };
}
