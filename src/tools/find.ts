import path from "node:path";
import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { baseArgs, globMatcher, runRg } from "./ripgrep.js";
import { FIND_DEFAULT_CAP, GREP_TIMEOUT_MS } from "../limits.js";

const GLOB_CHARS = /[*?[\]{}]/;

export const findFilesTool = defineTool({
  name: "find",
  aliases: ["find_file", "glob"],
  description: `Find files by name. pattern is a substring of the file name (case-insensitive; matched against the whole relative path when it contains "/") or a glob such as "*.py" or "src/**/*.ts". Lists paths relative to the workspace root, sorted; .gitignore is honored and .git/, node_modules/ and the like are skipped. At most ${FIND_DEFAULT_CAP} paths unless limit says otherwise.`,
  schema: () => z
    .object({
      pattern: z.string().min(1).describe('Substring of file names, or a glob such as "**/*.ts"'),
      path: z.string().optional().describe("Directory to search in, relative to the root (default: the root)"),
      limit: z.number().int().min(1).optional().describe(`Maximum number of paths (default ${FIND_DEFAULT_CAP})`),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const dir = workspace.resolve(args.path ?? ".");
    if (!dir.exists) throw new ToolError(`${dir.rel}: directory not found`);
    const limit = args.limit ?? FIND_DEFAULT_CAP;
    const rgArgs = [...baseArgs(), "--files", "--sort", "path"];
    const isGlob = GLOB_CHARS.test(args.pattern);
    // Matched here, not with ripgrep's --iglob: that would override .gitignore and the skip list.
    const matchesGlob = isGlob ? globMatcher(args.pattern, true) : undefined;
    if (dir.rel !== ".") rgArgs.push("--", dir.rel);
    const needle = args.pattern.toLowerCase();
    const byPath = needle.includes("/");
    const files: string[] = [];
    let total = 0;
    const run = await runRg(rgArgs, workspace.root, GREP_TIMEOUT_MS, (line) => {
      if (!line) return;
      if (matchesGlob) {
        if (!matchesGlob(line)) return;
      } else {
        const hay = (byPath ? line : path.posix.basename(line)).toLowerCase();
        if (!hay.includes(needle)) return;
      }
      total++;
      if (files.length < limit) files.push(line);
    }, signal);
    if (run.exitCode !== 0 && run.exitCode !== 1 && !run.timedOut) {
      throw new ToolError(`find failed: ${run.stderr.trim() || `ripgrep exited with ${run.exitCode}`}`);
    }
    const lines = [...files];
    if (total === 0) lines.push(`no files matching "${args.pattern}"${dir.rel !== "." ? ` under ${dir.rel}` : ""}`);
    if (total > files.length) lines.push(`... truncated (${total - files.length} more)`);
    if (run.timedOut) lines.push(`... search timed out after ${GREP_TIMEOUT_MS / 1000}s; the list is incomplete`);
    return ok(lines.join("\n"), { files, count: total, truncated: total > files.length || run.timedOut });
  },
});
