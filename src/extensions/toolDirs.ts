// Where custom tool definitions live, apart from the code that reads
// them, so a command can see there are none without loading that code.
import fs from "node:fs";
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { userConfigDir } from "../base/trustStore.js";

/** The project's definitions (.rt/tools, used once the folder is trusted) and the user's (~/.config/rt/tools). */
export function toolDirs(ws: Workspace): { project: string; user: string } {
  return { project: path.join(ws.root, ".rt", "tools"), user: path.join(userConfigDir(ws.env), "tools") };
}

/** Whether either folder exists (a symbolic link counts, broken or not: reading it reports what is wrong). */
export function anyToolDir(ws: Workspace): boolean {
  const dirs = toolDirs(ws);
  return [dirs.project, dirs.user].some((dir) => {
    try {
      fs.lstatSync(dir);
      return true;
    } catch {
      return false;
    }
  });
}
