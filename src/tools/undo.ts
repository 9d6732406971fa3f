import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { Journal, restoredMode } from "../workspace/journal.js";
import { hashBytes } from "../workspace/fingerprint.js";
import { withFileLock } from "../workspace/fileLock.js";
import { splitLines } from "../workspace/workspace.js";
import { EDIT_MAX_BYTES, JOURNAL_KEEP } from "../base/limits.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

export const undoTool = defineTool({
  name: "undo_edit",
  aliases: ["undo"],
  description: `Undo rt's last edit of a file (the last ${JOURNAL_KEEP} per file are kept: repeated undos walk back). Refused if something else changed the file since.`,
  schema: () => withArgAliases(FILE_PATH_ALIAS, z.object({ path: editedPath() }).strict()),
  cli: {
    command: "undo",
    summary: "undo rt's last edit of PATH (refused if the file changed since)",
    positionals: [{ key: "path", name: "PATH", path: true }],
  },
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    const r = workspace.resolve(args.path);
    const journal = new Journal(workspace.state);
    if (!journal.enabled)
      throw new ToolError("undo is unavailable: state is off (RT_STATE=off), so rt kept no journal of edits");
    return withFileLock(workspace.state, r.rel, r.abs, () => {
      const last = journal.latest(r.rel);
      if (!last) {
        const stateProblem = workspace.state.problem;
        const problem = stateProblem ? undefined : workspace.state.stateKey().problem;
        throw new ToolError(
          `${r.rel}: no rt edit to undo${stateProblem ? ` (${stateProblem})` : problem ? ` (rt's state key is not usable, so edits of earlier rt processes cannot be recognised: ${problem})` : ""}`,
        );
      }
      // Undo needs the file as rt left it: a file that is gone, or holds anything else, is not touched.
      // Bytes and mode from one descriptor opened through the confined writer (no symlink followed,
      // not through the path resolved a moment ago): the mode undo narrows to is this file's own.
      let current: Buffer | null = null;
      let currentMode = 0;
      try {
        const found = workspace.writer.readFileStat(r.rel, { maxBytes: EDIT_MAX_BYTES });
        if (found) {
          current = found.bytes;
          currentMode = found.stat.mode;
        }
      } catch (e) {
        if (e instanceof ToolError) throw e; // a symlink on the way, or far larger than rt ever writes
        current = null;
      }
      if (!current || hashBytes(current) !== last.entry.afterHash) {
        throw new ToolError(
          `${r.rel} was changed after rt's last edit (by another program or by hand${current ? "" : ": it no longer exists"}); undo refused so that change is not lost. Use git or edit the file instead.`,
        );
      }
      if (last.before === null) {
        workspace.writer.unlink(r.rel);
        workspace.lineIds.forget(r.rel);
      } else {
        workspace.writer.writeAtomic(r.rel, last.before, { mode: restoredMode(last.entry.mode, currentMode) });
        workspace.lineIds.idsFor(r.rel, splitLines(last.before.toString("utf8")), hashBytes(last.before));
      }
      last.pop();
      const what = last.before === null ? "deleted it (rt had created it)" : "restored the content before it";
      return ok(
        `✓ Undid the last ${last.entry.tool} of ${r.rel}: ${what}. ${last.remaining} earlier edit(s) can still be undone.`,
        {
          path: r.rel,
          remaining: last.remaining,
        },
      );
    });
  },
});
