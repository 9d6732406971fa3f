// Tool output longer than the model should see is cut in the middle (head and
// tail kept), and the whole of it is saved under `.rt/tool-output/` so the
// model can read or grep the rest. The newest SAVED_OUTPUTS_KEEP files are kept.
import fs from "node:fs";
import { cutMiddle, cutTail } from "./truncate.js";
import type { Workspace } from "../workspace/workspace.js";
import { SAVED_OUTPUTS_KEEP } from "../base/limits.js";

export const SAVED_OUTPUT_DIR = "tool-output";

/**
 * The output as the model gets it: whole when it fits in `maxChars`; else cut,
 * saying where the whole of it was saved (`saved`, relative to the root) or
 * that it could not be. `name`: the session and call it belongs to. `pages`: the output is
 * lines to page through (a read, a listing): cut after a whole line, never in the middle.
 */
export function fitToolOutput(
  ws: Workspace,
  full: string,
  maxChars: number,
  name: { sessionId: string; callId: string },
  pages = false,
): { text: string; saved?: string } {
  if (full.length <= maxChars) return { text: full };
  const base = `${name.sessionId}-${name.callId}`.replace(/[^\w.-]/g, "_"); // a subagent's session id is PARENT/CALL
  let saved: string | undefined;
  try {
    if (ws.state.ensure()) {
      // Call ids repeat (text mode numbers its calls per process; some servers reuse "call_1"): never overwrite an earlier output.
      let file = `${base}.txt`;
      for (let n = 2; fs.existsSync(ws.state.file(SAVED_OUTPUT_DIR, file)); n++) file = `${base}-${n}.txt`;
      ws.state.prune(SAVED_OUTPUTS_KEEP - 1, SAVED_OUTPUT_DIR);
      ws.state.writeText(full, SAVED_OUTPUT_DIR, file);
      saved = `.rt/${SAVED_OUTPUT_DIR}/${file}`;
    }
  } catch {
    saved = undefined;
  }
  const where = saved
    ? `the full output is saved in ${saved} (read or grep it for the rest)`
    : "the full output could not be saved (.rt/ state is off)";
  return { text: (pages ? cutTail : cutMiddle)(full, maxChars, where).text, ...(saved ? { saved } : {}) };
}
