import * as z from "zod";
import fs from "node:fs";
import { defineTool, ToolError } from "./types.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";
import { GREP_DEFAULT_CAP } from "../base/limits.js";
import { GREP_ALIASES, GREP_CLI_OPTIONS, grepOptions, refuseBinary, search } from "./shared/grepSearch.js";

export const grepTool = defineTool({
  name: "grep",
  aliases: ["search_dir"],
  brief: `Search file contents for a regex: "path:line: text" per match. path and glob narrow the search.`,
  description: `Search file contents with ripgrep: "path:line: text" in path order, at most ${GREP_DEFAULT_CAP} matches (a last line says how many more). .gitignore is honored; binary files, .git/, node_modules/ skipped. glob filters files ("src/**/*.ts"); output_mode files_with_matches or count; ids: true adds line IDs for edit_lines.`,
  schema: () =>
    withArgAliases(
      GREP_ALIASES,
      z
        .object({
          ...grepOptions(GREP_ALIASES),
          path: z
            .string()
            .optional()
            .describe(`Directory or file to search (default: the root)${aliasNote(GREP_ALIASES, "path")}`),
          glob: z
            .string()
            .optional()
            .describe(`Only files matching this glob${aliasNote(GREP_ALIASES, "glob")}`),
          output_mode: z
            .enum(["content", "files_with_matches", "count"])
            .optional()
            .describe("content (default), files_with_matches or count"),
        })
        .strict(),
    ),
  cli: {
    synopsis: "rt grep PATTERN [PATH] [-i] [-F] [-C N] [-A N] [-B N] [-U] [--glob G] [-l|-c] [--limit N] [--ids]",
    summary:
      "search file contents with ripgrep (in PATH, default the current directory): path:line: text, in path order; exit 1 when nothing matched",
    positionals: [
      { key: "pattern", name: "PATTERN" },
      { key: "path", name: "PATH", optional: true, path: "here" },
    ],
    options: {
      ...GREP_CLI_OPTIONS,
      glob: { short: "g" },
      output_mode: {
        values: {
          "files-with-matches": { value: "files_with_matches", short: "l", help: "list matching files only" },
          count: { value: "count", short: "c", help: "count matches per file" },
        },
      },
    },
  },
  readOnly: true,
  swe: true,
  idempotent: true,
  async handler(args, { workspace, signal, onProgress }) {
    const target = workspace.resolve(args.path ?? ".");
    if (!target.exists) throw new ToolError(`${target.rel}: no such file or directory`);
    const isFile = fs.statSync(target.abs).isFile();
    if (isFile) refuseBinary(target.rel, target.abs);
    return search(workspace, target.rel, args, isFile, signal, onProgress);
  },
});
