import fs from "node:fs";
import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { applyEdit, type Snapshot } from "../workspace/applyEdit.js";
import type { Workspace } from "../workspace/workspace.js";
import { statVersion } from "../workspace/lineIds.js";
import { parseFile, splitContent } from "../edit/fileModel.js";
import { findElision, elisionMessage } from "../edit/elision.js";
import { editOptions } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

/**
 * Write after read (as Claude Code's Write): overwriting a file the
 * caller has not been shown in its current content would destroy what it never
 * saw. rt's record of what it showed (line IDs' `shown` version: read, open,
 * scroll, grep matches, the region after an edit, a previous write) must name
 * the file's current version. New files are free.
 */
function requireShown(workspace: Workspace, snap: Snapshot): void {
  if (snap.bytes === null || snap.hash === null) return;
  if (workspace.lineIds.wasShown(snap.rel, snap.hash)) return;
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(snap.abs);
  } catch {
    stat = undefined;
  }
  if (stat && workspace.lineIds.wasShown(snap.rel, statVersion(stat))) return;
  const seen = workspace.lineIds.viewed(snap.rel) !== undefined;
  throw new ToolError(
    `${snap.rel} exists and ${seen ? "has changed since rt last showed it to you" : "has not been read"}: write would replace content you have not seen, so nothing was written. ` +
      `Read it first (read or open ${snap.rel}), then write; or change parts of it with edit or edit_lines.`,
    { reason: "not-read" },
  );
}

export const writeTool = defineTool({
  name: "write",
  aliases: ["write_file"],
  brief: `Create a file, or replace one you have read, with content.`,
  description: `Create a file (parents too), or overwrite one whose current content you have read (read, open, grep, an edit). Written exactly as given; an existing file keeps its mode. Placeholders for existing code ("// ... existing code ...") are refused. For changes prefer edit or edit_lines.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          content: z.string(),
          ...editOptions,
        })
        .strict(),
    ),
  readOnly: false,
  editing: true,
  idempotent: true,
  async handler(args, { workspace }) {
    const lines = splitContent(args.content);
    let existed = false;
    const r = await applyEdit(
      workspace,
      args.path,
      // The content is written exactly as given: its own line endings, BOM or none.
      (snap) => {
        existed = snap.bytes !== null;
        requireShown(workspace, snap);
        if (snap.bytes !== null && !args.force) {
          const elided = findElision(snap.model.lines, lines);
          if (elided)
            throw new ToolError(elisionMessage(elided, "content"), { reason: "elision", lines: [elided.oldStart + 1] });
        }
        return { model: parseFile(Buffer.from(args.content, "utf8")), start: 1, end: lines.length };
      },
      {
        tool: "write",
        mayCreate: true,
        dryRun: args.dry_run,
        force: args.force,
        showDiff: args.show_diff,
        verb: "Wrote",
      },
    );
    if (r.metadata.changed) workspace.lineIds.clear(r.metadata.path as string);
    // The result fields: what was written (nothing on a dry run or when the content was already there).
    const changed = r.metadata.changed === true;
    return ok(r.output, {
      ...r.metadata,
      created: changed && !existed,
      bytes_written: changed ? Buffer.byteLength(args.content) : 0,
    });
  },
});
