// `kill_shell`: end a background shell and everything it started.
import * as z from "zod";
import { defineTool, ok } from "./types.js";
import { getBackground, killBackground } from "../shell/background.js";
import { formatDuration, statusLine } from "../shell/format.js";

export const killShellTool = defineTool({
  name: "kill_shell",
  aliases: ["KillShell"],
  description:
    "End a background shell (bash with background: true): its process group gets SIGTERM, then SIGKILL. Unread output stays for one last bash_output.",
  schema: () =>
    z
      .object({
        id: z.string().min(1).describe("The id bash returned, e.g. bash_1"),
      })
      .strict(),
  readOnly: false,
  enforcesReadOnly: true,
  async handler(args) {
    const shell = getBackground(args.id);
    if (shell.exit) {
      return ok(`${shell.id} had already ended: ${statusLine(shell.exit, undefined)}`, {
        id: shell.id,
        was_running: false,
        exit_code: shell.exit.exitCode,
      });
    }
    const exit = await killBackground(shell);
    return ok(`${shell.id} killed after ${formatDuration(exit.durationMs)} (${shell.command})`, {
      id: shell.id,
      was_running: true,
      exit_code: exit.exitCode,
    });
  },
});
