// What the editing tools share: the schema pieces (line references, indent_level,
// dry_run/force/show_diff), and running line changes (edit_lines, edit_range,
// insert_at) through the workspace's edit pipeline with the planner of
// edit/lineEdits.ts.
import * as z from "zod";
import type { Workspace } from "../../workspace/workspace.js";
import { applyEdit } from "../../workspace/applyEdit.js";
import { changesUseIds, planLineChanges, type ChangeSpec } from "../../edit/lineEdits.js";
import { ToolError, ok, type CliOption, type ToolResult } from "../types.js";

export type { ChangeSpec } from "../../edit/lineEdits.js";

export const lineRef = z
  .union([z.number().int(), z.string()])
  .describe("Line number (12), line ID (k3f9), or both (12:k3f9)");

/** `indent_level`: the new content's base indentation, in columns (overrides re-indentation). */
export const indentLevel = z.number().int().min(0).optional();

/** Options every editing tool accepts. */
export const editOptions = {
  dry_run: z.boolean().optional().describe("Diff only, no write"),
  force: z.boolean().optional().describe("Write despite new syntax errors"),
  show_diff: z.boolean().optional().describe("Add the diff (git's if tracked)"),
};

/** The editing options on the command line (`rt edit --dry-run --indent 4`). */
export const EDIT_CLI_OPTIONS: Readonly<Record<string, CliOption>> = {
  dry_run: {},
  show_diff: {},
  force: {},
  indent_level: { flag: "indent", help: "indentation of the new content, in columns" },
};

export async function runLineChanges(
  workspace: Workspace,
  path: string,
  specs: ChangeSpec[],
  opts: { tool: string; dry_run?: boolean; force?: boolean; show_diff?: boolean },
): Promise<ToolResult> {
  if (specs.length === 0) throw new ToolError("no changes given");
  const ids = changesUseIds(specs);
  const r = await applyEdit(workspace, path, (snap) => planLineChanges(snap, specs, opts.force === true), {
    tool: opts.tool,
    dryRun: opts.dry_run,
    force: opts.force,
    showDiff: opts.show_diff,
    withIds: true,
    replanOnConflict: ids,
  });
  return ok(r.output, r.metadata);
}
