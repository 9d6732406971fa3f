import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { applyEdit } from "../workspace/applyEdit.js";
import { parseFile } from "../edit/fileModel.js";
import { editNotebook, parseNotebook, type NotebookEditMode } from "../edit/notebook.js";
import { notebookSchemaErrors } from "../edit/notebookSchema.js";
import { editOptions } from "./shared/editing.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";

/** Claude Code's NotebookEdit names the file notebook_path. */
const NOTEBOOK_ALIASES = { notebook_path: "path", file_path: "path" } as const;

/** The 1-based line of character offset `at` in `text`. */
function lineAt(text: string, at: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export const notebookEditTool = defineTool({
  name: "notebook_edit",
  aliases: ["NotebookEdit"],
  brief: "Replace, insert or delete one cell of a Jupyter notebook (.ipynb).",
  description:
    "Replace (default), insert (after cell_id, or first) or delete one cell of a Jupyter notebook; cell_id as read shows it. Other cells keep their bytes; the result is checked against nbformat's schema; undo_edit reverts.",
  schema: () =>
    withArgAliases(
      NOTEBOOK_ALIASES,
      z
        .object({
          path: z.string().describe(`The .ipynb file${aliasNote(NOTEBOOK_ALIASES, "path")}`),
          cell_id: z.string().min(1).optional().describe("The cell (insert: goes after it; none: first)"),
          new_source: z.string().optional().describe("The cell's new source"),
          cell_type: z.enum(["code", "markdown", "raw"]).optional().describe("Default: kept (insert: code)"),
          edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe("Default replace"),
          dry_run: editOptions.dry_run,
        })
        .strict(),
    ),
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    if (!args.path.toLowerCase().endsWith(".ipynb"))
      throw new ToolError(`${args.path}: not a notebook (.ipynb); use edit or edit_lines for other files`);
    const mode: NotebookEditMode = args.edit_mode ?? "replace";
    if (mode !== "insert" && args.cell_id === undefined)
      throw new ToolError(`edit_mode ${mode} needs cell_id: the id of the cell (read the notebook to see them)`);
    if (mode !== "delete" && args.new_source === undefined)
      throw new ToolError(`edit_mode ${mode} needs new_source: the cell's content`);
    let done: { index: number; cellId: string; cellType: string } | undefined;
    const r = await applyEdit(
      workspace,
      args.path,
      async (snap) => {
        const text = snap.bytes!.toString("utf8");
        const before = parseNotebook(snap.rel, text);
        const edited = editNotebook(snap.rel, text, {
          mode,
          ...(args.cell_id !== undefined ? { cellId: args.cell_id } : {}),
          ...(args.new_source !== undefined ? { newSource: args.new_source } : {}),
          ...(args.cell_type ? { cellType: args.cell_type } : {}),
        });
        // The schema check: errors the edit adds refuse it; a notebook already invalid is not made worse.
        const after = parseNotebook(snap.rel, edited.text);
        const known = new Set(await notebookSchemaErrors(before.json));
        const added = (await notebookSchemaErrors(after.json)).filter((e) => !known.has(e));
        if (added.length > 0) {
          throw new ToolError(
            `edit rejected: the notebook would not be valid nbformat ${after.json.nbformat}.${after.json.nbformat_minor}; ${snap.rel} is unchanged.\n${added.slice(0, 10).join("\n")}`,
            { validation_failed: true },
          );
        }
        done = edited;
        const span = mode === "delete" ? undefined : after.spans[edited.index];
        const start = span
          ? lineAt(edited.text, span.start)
          : lineAt(edited.text, before.spans[edited.index]?.start ?? before.array.start);
        const end = span ? lineAt(edited.text, span.end) : start;
        return { model: parseFile(Buffer.from(edited.text, "utf8")), start, end };
      },
      { tool: "notebook_edit", dryRun: args.dry_run },
    );
    const what = mode === "replace" ? "replaced" : mode === "insert" ? "inserted" : "deleted";
    const head = done
      ? `cell ${done.cellId} (${done.cellType}) ${what}${mode === "insert" ? ` as cell ${done.index + 1}` : ""}`
      : "";
    return ok(head ? `${head}\n${r.output}` : r.output, {
      ...r.metadata,
      ...(done ? { cell_id: done.cellId, cell_type: done.cellType, edit_mode: mode } : {}),
    });
  },
});
