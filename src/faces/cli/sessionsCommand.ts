// `rt sessions` (this project's sessions, most recent first) and
// `rt export ID [--output FILE]` (a session as markdown).
import fs from "node:fs";
import path from "node:path";
import type { Workspace } from "../../workspace/workspace.js";
import { listSessions, readSessionRecords, readSidechains, sessionFile, SessionError } from "../../agent/session.js";
import { sessionMarkdown } from "../../agent/exportMarkdown.js";
import type { Io } from "../../ui/io.js";
import { formatSessionList } from "../../ui/sessionList.js";
import { formatRewindPoints } from "../../ui/rewindCommand.js";
import { rewindPoints } from "../../agent/rewind.js";
import { ConfinedFs } from "../../workspace/confinedFs.js";
import { isWithin, toRel } from "../../workspace/paths.js";

export function sessionsCommand(ws: Workspace, flags: Record<string, unknown>, io: Io): number {
  const sessions = listSessions(ws);
  if (flags.json === true) io.stdout(`${JSON.stringify(sessions)}\n`);
  else {
    io.stdout(formatSessionList(sessions));
    // The last session's prompts, numbered as rt rewind --to takes them.
    if (sessions[0])
      io.stdout(
        `\n${formatRewindPoints(sessions[0].id, rewindPoints(readSessionRecords(ws, `${sessions[0].id}.jsonl`)))}`,
      );
  }
  return 0;
}

export function exportCommand(ws: Workspace, positionals: string[], flags: Record<string, unknown>, io: Io): number {
  if (positionals.length !== 1) {
    io.stderr(
      `rt export: ${positionals.length === 0 ? "missing session ID" : `unexpected argument "${positionals[1]}"`}\nUsage: rt export ID [--output FILE]\n`,
    );
    return 2;
  }
  let file: string;
  try {
    file = sessionFile(ws, positionals[0]);
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr(`rt export: ${e.message}\n`);
    return 2;
  }
  const id = path.basename(file, ".jsonl");
  const markdown = sessionMarkdown(readSessionRecords(ws, path.basename(file)), readSidechains(ws, id));
  if (typeof flags.output === "string") {
    let target: string;
    try {
      target = writeExport(ws, flags.output, markdown);
    } catch (e) {
      io.stderr(`rt export: cannot write ${flags.output}: ${(e as Error).message}\n`);
      return 1;
    }
    io.stderr(`wrote ${target}\n`);
  } else io.stdout(markdown);
  return 0;
}

/**
 * Writes the export where the user asked (`--output` is relative to where rt
 * was started, like --out). Inside the workspace it goes through the
 * workspace's confined writer: no symlink anywhere below the root is followed
 * (a repository's `docs -> ~/.ssh` link does not move it). Elsewhere the
 * directory is the user's own choice and is taken as it resolves, but the file
 * itself is never written through a symlink: it is replaced atomically in that
 * directory, and a symlink at the name is refused.
 */
function writeExport(ws: Workspace, output: string, markdown: string): string {
  let cwd = process.cwd();
  try {
    cwd = fs.realpathSync(cwd);
  } catch {
    /* keep it as it is */
  }
  const target = path.resolve(cwd, output);
  if (isWithin(ws.root, target)) {
    ws.writer.writeAtomic(toRel(ws.root, target), markdown, { fsync: true });
    return target;
  }
  const dir = fs.realpathSync(path.dirname(target));
  const name = path.basename(target);
  if (isWithin(ws.root, dir)) ws.writer.writeAtomic(toRel(ws.root, path.join(dir, name)), markdown, { fsync: true });
  else new ConfinedFs(dir).writeAtomic(name, markdown, { fsync: true });
  return target;
}
