import * as z from "zod";
import path from "node:path";
import { defineTool, ok, ToolError } from "./types.js";
import { baseArgs, comparePaths, globMatcher, lineSplitter, runRg } from "./shared/ripgrep.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";
import { FIND_DEFAULT_CAP, GREP_TIMEOUT_MS } from "../base/limits.js";

const GLOB_CHARS = /[*?[\]{}]/;

/** The older find_file takes the directory as root. */
const FIND_ALIASES = { root: "path" } as const;

export const findFilesTool = defineTool({
  name: "find",
  aliases: ["find_file", "glob"],
  brief: `Find files whose name contains pattern, or matches a glob ("src/**/*.ts").`,
  description: `Find files by name: a substring of the name (case-insensitive; of the path if it has "/") or a glob ("src/**/*.ts"). Sorted paths, at most ${FIND_DEFAULT_CAP}; .gitignore honored, .git/ and node_modules/ skipped.`,
  schema: () =>
    withArgAliases(
      FIND_ALIASES,
      z
        .object({
          pattern: z.string().min(1).describe("Name substring or glob"),
          path: z
            .string()
            .optional()
            .describe(`Directory (default: the root)${aliasNote(FIND_ALIASES, "path")}`),
          limit: z.number().int().min(1).optional().describe(`Paths listed (default ${FIND_DEFAULT_CAP})`),
        })
        .strict(),
    ),
  cli: {
    summary:
      "find files whose name contains PATTERN, or match a glob such as '**/*.ts' (in DIR, default the current directory)",
    positionals: [
      { key: "pattern", name: "PATTERN" },
      { key: "path", name: "DIR", optional: true, path: "here" },
    ],
    options: { limit: {} },
  },
  readOnly: true,
  swe: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const dir = workspace.resolve(args.path ?? ".");
    if (!dir.exists) throw new ToolError(`${dir.rel}: directory not found`);
    const limit = args.limit ?? FIND_DEFAULT_CAP;
    // Not ripgrep's --sort path: it walks the tree on one thread. The matching
    // names are sorted here instead (the same order: comparePaths).
    const rgArgs = [...baseArgs(), "--files"];
    const isGlob = GLOB_CHARS.test(args.pattern);
    // Matched here, not with ripgrep's --iglob: that would override .gitignore and the skip list.
    const matchesGlob = isGlob ? globMatcher(args.pattern, true) : undefined;
    if (dir.rel !== ".") rgArgs.push("--", dir.rel);
    const needle = args.pattern.toLowerCase();
    const byPath = needle.includes("/");
    const found: string[] = [];
    const lines = lineSplitter((line) => {
      if (!line) return;
      if (matchesGlob) {
        if (!matchesGlob(line)) return;
      } else {
        const hay = (byPath ? line : path.posix.basename(line)).toLowerCase();
        if (!hay.includes(needle)) return;
      }
      found.push(line);
    });
    const run = await runRg(rgArgs, workspace.root, GREP_TIMEOUT_MS, lines.onData, signal);
    lines.end();
    if (run.exitCode !== 0 && run.exitCode !== 1 && !run.timedOut) {
      throw new ToolError(`find failed: ${run.stderr.trim() || `ripgrep exited with ${run.exitCode}`}`);
    }
    found.sort(comparePaths);
    const total = found.length;
    const files = found.slice(0, limit);
    const out = [...files];
    if (total === 0) out.push(`no files matching "${args.pattern}"${dir.rel !== "." ? ` under ${dir.rel}` : ""}`);
    if (total > files.length) out.push(`... truncated (${total - files.length} more)`);
    if (run.timedOut) out.push(`... search timed out after ${GREP_TIMEOUT_MS / 1000}s; the list is incomplete`);
    return ok(out.join("\n"), { files, count: total, truncated: total > files.length || run.timedOut });
  },
});
