import * as z from "zod";
import fs from "node:fs";
import { defineTool } from "./types.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";
import { GREP_DEFAULT_CAP } from "../base/limits.js";
import { GREP_CLI_OPTIONS, GREP_FILE_ALIASES, grepOptions, refuseBinary, search } from "./shared/grepSearch.js";

export const grepFileTool = defineTool({
  name: "grep_file",
  aliases: ["grep-file", "search_file"],
  description: `Search one file of any size (ripgrep regex): "line: text" per match, at most ${GREP_DEFAULT_CAP}.`,
  schema: () =>
    withArgAliases(
      GREP_FILE_ALIASES,
      z
        .object({
          ...grepOptions(GREP_FILE_ALIASES),
          path: z.string().describe(`File to search${aliasNote(GREP_FILE_ALIASES, "path")}`),
        })
        .strict(),
    ),
  cli: {
    synopsis: "rt grep-file PATTERN PATH [-i] [-F] [-C N] [-A N] [-B N] [-U] [--limit N] [--ids]",
    summary: "search one file: <line>: text; exit 1 when nothing matched",
    positionals: [
      { key: "pattern", name: "PATTERN" },
      { key: "path", name: "PATH", path: true },
    ],
    options: GREP_CLI_OPTIONS,
  },
  readOnly: true,
  swe: true,
  idempotent: true,
  async handler(args, { workspace, signal, onProgress }) {
    const r = workspace.resolve(args.path);
    if (r.exists && fs.statSync(r.abs).isFile()) refuseBinary(r.rel, r.abs);
    const file = workspace.resolveTextFile(args.path);
    return search(workspace, file.rel, args, true, signal, onProgress);
  },
});
