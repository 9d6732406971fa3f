import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, ok, ToolError, type ToolResult } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import { fileBinaryKind } from "../workspace/binary.js";
import { statVersion } from "../workspace/lineIds.js";
import { baseArgs, globMatcher, runRg } from "./ripgrep.js";
import { cutLine, plural } from "./format.js";
import { GREP_DEFAULT_CAP, GREP_MAX_LINE_CHARS, GREP_TIMEOUT_MS } from "../limits.js";

export const grepOptions = {
  pattern: z.string().min(1).describe("Regular expression (Rust regex syntax), or literal text with fixed_strings"),
  ignore_case: z.boolean().optional().describe("Case-insensitive search"),
  fixed_strings: z.boolean().optional().describe("Treat pattern as literal text, not a regex"),
  context: z.number().int().min(0).max(50).optional().describe("Lines of context before and after each match"),
  multiline: z.boolean().optional().describe("Let the pattern match across lines (. matches newlines)"),
  limit: z.number().int().min(1).optional().describe(`Maximum number of matches shown (default ${GREP_DEFAULT_CAP})`),
  ids: z.boolean().optional().describe("Show each matching line's persistent line ID"),
};

export interface Match {
  file: string;
  line: number;
  content: string;
  line_id?: string;
}

interface SearchSpec {
  pattern: string;
  ignore_case?: boolean;
  fixed_strings?: boolean;
  context?: number;
  multiline?: boolean;
  limit?: number;
  ids?: boolean;
  glob?: string;
  output_mode?: "content" | "files_with_matches" | "count";
}

/**
 * Shared by grep (a tree) and grep-file (one file). `target` is a path relative
 * to the root, already checked; "." means the whole root.
 */
export async function search(workspace: Workspace, target: string, spec: SearchSpec, single: boolean, signal?: AbortSignal): Promise<ToolResult> {
  const mode = spec.output_mode ?? "content";
  const limit = spec.limit ?? GREP_DEFAULT_CAP;
  // --crlf: `$` also matches before "\r\n", so anchors work in CRLF files
  // (ripgrep then ends its output lines with "\r\n"; the "\r" is dropped below).
  const args = [...baseArgs(), "--no-messages", "--crlf"];
  if (spec.ignore_case) args.push("--ignore-case");
  if (spec.fixed_strings) args.push("--fixed-strings");
  if (spec.multiline) args.push("--multiline", "--multiline-dotall");
  // ripgrep's --glob is an override: a positive one would bring back files that
  // .gitignore or the skip list leave out. So only exclusions go to --glob; a file
  // name glob becomes a file type (types honor ignore rules); others are matched here.
  let keep: ((file: string) => boolean) | undefined;
  if (spec.glob) {
    if (spec.glob.startsWith("!")) args.push("--glob", spec.glob);
    else if (!spec.glob.includes("/") && !spec.glob.includes(":")) args.push("--type-add", `rtglob:${spec.glob}`, "--type", "rtglob");
    else keep = globMatcher(spec.glob);
  }
  if (mode === "files_with_matches") args.push("--files-with-matches");
  else if (mode === "count") args.push("--count", "--with-filename", "--null");
  else {
    args.push("--line-number", "--with-filename", "--null");
    if (spec.context) args.push("--context", String(spec.context));
  }
  args.push("--regexp", spec.pattern);
  if (target !== ".") args.push("--", target);

  const matches: Match[] = [];
  const shown: string[] = [];
  const files: string[] = [];
  const counts: Array<{ file: string; count: number }> = [];
  let total = 0;
  let countFiles = 0;
  let capped = false;
  // ripgrep only skips files with NUL bytes; read and open also refuse files that
  // are mostly control bytes or have a binary magic number, so grep skips those too
  // (checked once per matching file shown; past the cap, matches are only counted).
  const binary = new Map<string, boolean>();
  const isBinary = (file: string): boolean => {
    let b = binary.get(file);
    if (b === undefined) {
      b = looksBinary(path.join(workspace.root, file));
      binary.set(file, b);
    }
    return b;
  };

  const run = await runRg(args, workspace.root, GREP_TIMEOUT_MS, (printed) => {
    const raw = printed.endsWith("\r") ? printed.slice(0, -1) : printed;
    if (mode === "files_with_matches") {
      if (!raw || (keep && !keep(raw)) || (files.length < limit && isBinary(raw))) return;
      total++;
      if (files.length < limit) files.push(raw);
      return;
    }
    const nul = raw.indexOf("\0");
    if (nul === -1) {
      // "--" between context groups.
      if (!capped && raw === "--" && spec.context && shown.length && shown[shown.length - 1] !== "--") shown.push("--");
      return;
    }
    const file = raw.slice(0, nul);
    if (keep && !keep(file)) return;
    const rest = raw.slice(nul + 1);
    if (mode === "count") {
      if (counts.length < limit && isBinary(file)) return;
      const n = Number(rest);
      total += n;
      countFiles++;
      if (counts.length < limit) counts.push({ file, count: n });
      return;
    }
    const m = /^(\d+)([:-])/.exec(rest);
    if (!m) return;
    const line = Number(m[1]);
    const content = rest.slice(m[0].length);
    const isMatch = m[2] === ":";
    if (!capped && isBinary(file)) return;
    if (isMatch) total++;
    if (capped) return;
    if (isMatch && matches.length >= limit) {
      capped = true;
      return;
    }
    if (isMatch) matches.push({ file, line, content });
    shown.push(isMatch ? `\u0000M${matches.length - 1}` : `${single ? "" : `${file}-`}${line}- ${cutLine(content, GREP_MAX_LINE_CHARS)}`);
  }, signal);

  if (run.exitCode === 2 && total === 0 && !run.timedOut) {
    const msg = run.stderr.trim().split("\n").slice(0, 6).join("\n");
    throw new ToolError(`grep failed: ${msg || "ripgrep reported an error"}${spec.fixed_strings ? "" : "\n(if you meant the text literally, set fixed_strings)"}`);
  }
  const tail: string[] = [];
  if (run.timedOut) tail.push(`... search timed out after ${GREP_TIMEOUT_MS / 1000}s; results are incomplete`);

  if (mode === "files_with_matches") {
    const lines = files.length ? [...files] : [`no files match ${JSON.stringify(spec.pattern)}`];
    if (total > files.length) lines.push(`... truncated (${total - files.length} more files)`);
    return ok([...lines, ...tail].join("\n"), { files, count: total, truncated: total > files.length || run.timedOut });
  }
  if (mode === "count") {
    const lines = counts.length ? counts.map((c) => `${c.file}:${c.count}`) : [`no matches for ${JSON.stringify(spec.pattern)}`];
    if (countFiles > counts.length) lines.push(`... truncated (${countFiles - counts.length} more files)`);
    return ok([...lines, ...tail].join("\n"), { counts, count: total, truncated: countFiles > counts.length || run.timedOut });
  }

  if (shown[shown.length - 1] === "--") shown.pop();
  noteMatches(workspace, matches, spec.ids === true);
  const lines = shown.map((s) => {
    if (!s.startsWith("\u0000M")) return s;
    const mm = matches[Number(s.slice(2))];
    const id = mm.line_id ? `[LID:${mm.line_id}]: ` : " ";
    return `${single ? "" : `${mm.file}:`}${mm.line}:${id}${cutLine(mm.content, GREP_MAX_LINE_CHARS)}`;
  });
  if (matches.length === 0) lines.push(`no matches for ${JSON.stringify(spec.pattern)}${target !== "." ? ` in ${target}` : ""}`);
  if (total > matches.length) lines.push(`... truncated: showing ${matches.length} of ${plural(total, "match", "matches")} (${total - matches.length} more); narrow the pattern or path, or raise limit`);
  return ok([...lines, ...tail].join("\n"), { matches, count: total, truncated: total > matches.length || run.timedOut });
}

/** Whether the start of a file looks binary to read/open (unreadable files count as text). */
function looksBinary(abs: string): boolean {
  try {
    return fileBinaryKind(abs) !== null;
  } catch {
    return false;
  }
}

/**
 * Records the matched lines as seen by the caller (their numbers are current:
 * see staleNumber in edit/lineRefs.ts) and, with `withIds`, attaches each
 * match's line ID. Reads each matched file once; files the caller never viewed
 * are only read when IDs are asked for.
 */
function noteMatches(workspace: Workspace, matches: Match[], withIds: boolean): void {
  const byFile = new Map<string, Match[]>();
  for (const m of matches) {
    const list = byFile.get(m.file) ?? [];
    list.push(m);
    byFile.set(m.file, list);
  }
  for (const [file, list] of byFile) {
    try {
      if (!withIds && !workspace.lineIds.viewed(file)) {
        // Not read before: the matches still show this version of it (write after read, issue 10).
        const f = workspace.resolve(file);
        if (f.exists) workspace.lineIds.noteShown(f.rel, statVersion(fs.statSync(f.abs)));
        continue;
      }
      const f = workspace.resolveTextFile(file);
      const { ids, hash } = workspace.linesWithIds(f);
      if (withIds) for (const m of list) m.line_id = ids[m.line - 1];
      workspace.lineIds.markViewed(f.rel, hash, list.map((m) => m.line));
    } catch {
      // A file too large for IDs keeps plain line numbers.
    }
  }
}

export const grepTool = defineTool({
  name: "grep",
  aliases: ["search_dir"],
  description: `Search file contents under a directory with ripgrep. Output "path:line: text", at most ${GREP_DEFAULT_CAP} matches (a last line says how many more there were); long lines are cut. .gitignore is honored, binary files and .git/, node_modules/ are skipped.
- glob filters files ("*.py", "src/**/*.ts"); output_mode "files_with_matches" lists files, "count" counts per file.
- ids: true adds each match's persistent line ID for edit_lines.
Then jump to a match with open path:line.`,
  schema: () => z
    .object({
      ...grepOptions,
      path: z.string().optional().describe("Directory or file to search, relative to the root (default: the root)"),
      glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts"'),
      output_mode: z.enum(["content", "files_with_matches", "count"]).optional().describe("content (default), files_with_matches or count"),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const target = workspace.resolve(args.path ?? ".");
    if (!target.exists) throw new ToolError(`${target.rel}: no such file or directory`);
    return search(workspace, target.rel, args, fs.statSync(target.abs).isFile(), signal);
  },
});

export const grepFileTool = defineTool({
  name: "grep-file",
  aliases: ["search_file", "grep_file"],
  description: `Search one file for a pattern (ripgrep regex). Output "<line>: text" for each match, at most ${GREP_DEFAULT_CAP}. Works on files of any size without loading them.`,
  schema: () => z
    .object({
      ...grepOptions,
      path: z.string().describe("File to search, relative to the root"),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const file = workspace.resolveTextFile(args.path);
    return search(workspace, file.rel, args, true, signal);
  },
});
