// `rt rewind [--to N] [--code | --conversation] [--force] [--session ID]`:
// the TUI's /rewind from the command line, for the most recent session (or
// --session ID). Without --to it lists the points (the session's prompts, and
// undos of earlier rewinds) with their numbers. Files changed outside rt since
// the checkpoint are named: on a terminal the user is asked whether to restore
// them too (no: the rest is restored); without one the rewind stops, exit 1,
// changing nothing, unless --force.
import type { Workspace } from "../workspace/workspace.js";
import type { Io } from "./io.js";
import { latestSessionId, SessionError } from "../agent/session.js";
import { CheckpointError } from "../workspace/checkpoints.js";
import {
  performRewind,
  planCodeRewind,
  pointLabel,
  rewindPoints,
  sessionRecords,
  type CodePlan,
  type RewindMode,
  type RewindPoint,
} from "../agent/rewind.js";
import { terminalAvailable, terminalQuestionIo } from "./trustPrompt.js";

/** The numbered list of a session's rewind points, as `rt rewind` and `rt sessions` print it. */
export function formatRewindPoints(sessionId: string, points: readonly RewindPoint[]): string {
  if (points.length === 0) return `session ${sessionId} has no prompts to rewind to\n`;
  const rows = points.map((p) => `  ${String(p.n).padStart(3)}  ${pointLabel(p)}`);
  return `rewind points of session ${sessionId} (rt rewind --to N [--code | --conversation]):\n${rows.join("\n")}\n`;
}

/** A short list of paths for a message: the first few, then how many more. */
function namePaths(paths: readonly string[], max = 20): string {
  const shown = paths.slice(0, max).join(", ");
  return paths.length > max ? `${shown} and ${paths.length - max} more` : shown;
}

export async function rewindCommand(ws: Workspace, flags: Record<string, unknown>, io: Io): Promise<number> {
  if (flags.code === true && flags.conversation === true) {
    io.stderr("rt rewind: --code and --conversation exclude each other (neither: both are rewound)\n");
    return 2;
  }
  const mode: RewindMode = flags.code === true ? "code" : flags.conversation === true ? "conversation" : "both";
  const id = typeof flags.session === "string" ? flags.session : latestSessionId(ws);
  if (!id) {
    io.stderr(`rt rewind: no session in ${ws.root} yet; rt run or rt chat starts one\n`);
    return 1;
  }
  let records;
  try {
    records = sessionRecords(ws, id);
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr(`rt rewind: ${e.message}\n`);
    return 2;
  }
  const sessionId = (records[0] as { id: string }).id;
  const points = rewindPoints(records);
  if (flags.to === undefined) {
    io.stdout(formatRewindPoints(sessionId, points));
    return 0;
  }
  const n = flags.to as number;
  const point = points[n - 1];
  if (!point) {
    io.stderr(
      `rt rewind: --to must be a point of session ${sessionId}, from 1 to ${points.length}, not ${n}; rt rewind lists them\n`,
    );
    return 2;
  }
  let plan: CodePlan | undefined;
  if (mode !== "conversation") {
    try {
      plan = planCodeRewind(ws, records, point);
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      io.stderr(
        `rt rewind: ${e.message}${mode === "both" ? "; rt rewind --to N --conversation rewinds the conversation alone" : ""}\n`,
      );
      return 1;
    }
  }
  let includeOutside = flags.force === true;
  if (plan && plan.outside.length && !includeOutside) {
    const names = namePaths(plan.outside);
    if (!terminalAvailable()) {
      io.stderr(
        `rt rewind: changed outside rt since the checkpoint, and not overwritten without confirmation: ${names}. Nothing was changed; --force restores them too\n`,
      );
      return 1;
    }
    const q = terminalQuestionIo();
    const answer = await q.ask(
      `Changed outside rt since the checkpoint: ${names}.\nRestore these too (y), or keep them and restore the rest (n)? [y/N] `,
    );
    if (answer === "interrupt") return 130;
    includeOutside = /^y(es)?$/i.test((answer ?? "").trim());
  }
  const out = performRewind(ws, sessionId, point, mode, plan, includeOutside);
  const lines: string[] = [];
  if (out.code) {
    const c = out.code;
    lines.push(
      `code: ${c.written.length} file${c.written.length === 1 ? "" : "s"} restored${c.written.length ? ` (${namePaths(c.written)})` : ""}, ${c.removed.length} removed${c.removed.length ? ` (${namePaths(c.removed)})` : ""}`,
    );
    for (const s of c.skipped) lines.push(`  kept ${s.path}: ${s.why}`);
  }
  if (out.session) {
    lines.push(
      `conversation: new session ${out.session.log.id} (rt chat --continue resumes it; the earlier one is kept: rt chat --resume ${sessionId})`,
    );
    out.session.log.close();
  }
  if (out.prompt !== undefined) lines.push(`prompt ${point.n} was: ${out.prompt}`);
  io.stdout(
    `rewound to ${point.kind === "undo" ? "before the rewind" : `just before prompt ${point.n}`}\n${lines.join("\n")}\n`,
  );
  return 0;
}
