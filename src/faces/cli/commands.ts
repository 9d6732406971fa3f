// The `rt` commands: each turns its command line into (tool, arguments).
// Synopses and help text live here too, so `rt --help` lists exactly what exists.

export type OptionType = "string" | "boolean";

export interface OptionSpec {
  type: OptionType;
  short?: string;
  /** Converted to a number and checked to be a non-negative integer. */
  integer?: boolean;
  help: string;
}

export interface CommandSpec {
  name: string;
  synopsis: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** The command reads its content from standard input (passed to toCall as opts.stdin). */
  stdin?: boolean;
  /** Builds the tool call, or throws UsageError. */
  toCall?: (pos: string[], opts: Record<string, string | boolean | number | undefined>) => { tool: string; args: Record<string, unknown> };
}

export class UsageError extends Error {}

function need(pos: string[], n: number, what: string): void {
  if (pos.length < n) throw new UsageError(`missing ${what}`);
}

function noExtra(pos: string[], n: number): void {
  if (pos.length > n) throw new UsageError(`unexpected argument "${pos[n]}"`);
}

/** Copies the options that are set, renaming them to the tool's argument names. */
function pick(opts: Record<string, unknown>, map: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(map)) if (opts[from] !== undefined) out[to] = opts[from];
  return out;
}

const grepFlags: Record<string, OptionSpec> = {
  "ignore-case": { type: "boolean", short: "i", help: "case-insensitive" },
  "fixed-strings": { type: "boolean", short: "F", help: "pattern is literal text, not a regex" },
  context: { type: "string", short: "C", integer: true, help: "lines of context around each match" },
  multiline: { type: "boolean", short: "U", help: "let matches span lines" },
  limit: { type: "string", integer: true, help: "maximum matches shown (default 200)" },
  ids: { type: "boolean", help: "show each match's line ID" },
};
const grepMap = { "ignore-case": "ignore_case", "fixed-strings": "fixed_strings", context: "context", multiline: "multiline", limit: "limit", ids: "ids" };

const editFlags: Record<string, OptionSpec> = {
  "dry-run": { type: "boolean", help: "show the unified diff, write nothing" },
  "show-diff": { type: "boolean", help: "add the file's unified diff (or RT_AUTO_DIFF=1)" },
  force: { type: "boolean", help: "write even if the edit adds syntax errors" },
  indent: { type: "string", integer: true, help: "indentation of the new content, in columns" },
};
const editMap = { "dry-run": "dry_run", "show-diff": "show_diff", force: "force", indent: "indent_level" };

/** A line argument: a number stays a number; IDs and N:ID stay strings. */
function lineArg(s: string): number | string {
  return /^\d+$/.test(s) ? Number(s) : s;
}

export const COMMANDS: CommandSpec[] = [
  {
    name: "open",
    synopsis: "rt open PATH[:LINE|:START-END]",
    summary: "show a 100-line window of a file (centered on LINE, or START-END up to 200 lines)",
    options: {},
    toCall(pos) {
      need(pos, 1, "PATH");
      noExtra(pos, 1);
      return { tool: "open", args: { path: pos[0] } };
    },
  },
  {
    name: "scroll",
    synopsis: "rt scroll PATH +|-",
    summary: "show the next (+) or previous (-) window after the last open of PATH",
    options: {},
    toCall(pos) {
      need(pos, 2, "PATH and direction (+ or -)");
      noExtra(pos, 2);
      if (!["+", "-", "up", "down"].includes(pos[1])) throw new UsageError(`direction must be + or -, not "${pos[1]}"`);
      return { tool: "scroll", args: { path: pos[0], direction: pos[1] } };
    },
  },
  {
    name: "read",
    synopsis: "rt read PATH [--offset N] [--limit N] [--ids]",
    summary: "print a file with numbered lines (2000 lines / 50 KB at a time), optionally with line IDs",
    options: {
      offset: { type: "string", integer: true, help: "first line to show (1-based)" },
      limit: { type: "string", integer: true, help: "number of lines (default 2000)" },
      ids: { type: "boolean", help: "show persistent line IDs as [LID:xxxx]" },
    },
    toCall(pos, opts) {
      need(pos, 1, "PATH");
      noExtra(pos, 1);
      return { tool: "read", args: { path: pos[0], ...pick(opts, { offset: "offset", limit: "limit", ids: "ids" }) } };
    },
  },
  {
    name: "find",
    synopsis: "rt find PATTERN [DIR] [--limit N]",
    summary: "find files whose name contains PATTERN, or match a glob such as '**/*.ts'",
    options: { limit: { type: "string", integer: true, help: "maximum paths listed (default 200)" } },
    toCall(pos, opts) {
      need(pos, 1, "PATTERN");
      noExtra(pos, 2);
      return { tool: "find", args: { pattern: pos[0], ...(pos[1] ? { path: pos[1] } : {}), ...pick(opts, { limit: "limit" }) } };
    },
  },
  {
    name: "grep",
    synopsis: "rt grep PATTERN [PATH] [-i] [-F] [-C N] [-U] [--glob G] [-l|-c] [--limit N] [--ids]",
    summary: "search file contents with ripgrep: path:line: text",
    options: {
      ...grepFlags,
      glob: { type: "string", short: "g", help: "only files matching this glob" },
      "files-with-matches": { type: "boolean", short: "l", help: "list matching files only" },
      count: { type: "boolean", short: "c", help: "count matches per file" },
    },
    toCall(pos, opts) {
      need(pos, 1, "PATTERN");
      noExtra(pos, 2);
      if (opts["files-with-matches"] && opts.count) throw new UsageError("-l and -c cannot be combined");
      const mode = opts["files-with-matches"] ? "files_with_matches" : opts.count ? "count" : undefined;
      return {
        tool: "grep",
        args: { pattern: pos[0], ...(pos[1] ? { path: pos[1] } : {}), ...pick(opts, { ...grepMap, glob: "glob" }), ...(mode ? { output_mode: mode } : {}) },
      };
    },
  },
  {
    name: "grep-file",
    synopsis: "rt grep-file PATTERN PATH [-i] [-F] [-C N] [-U] [--limit N] [--ids]",
    summary: "search one file: <line>: text",
    options: grepFlags,
    toCall(pos, opts) {
      need(pos, 2, "PATTERN and PATH");
      noExtra(pos, 2);
      return { tool: "grep-file", args: { pattern: pos[0], path: pos[1], ...pick(opts, grepMap) } };
    },
  },
  {
    name: "ls",
    synopsis: "rt ls [DIR] [--tree] [--depth N] [-a]",
    summary: "list a directory (directories first), or a tree of it",
    options: {
      tree: { type: "boolean", short: "t", help: "recursive tree" },
      depth: { type: "string", integer: true, help: "tree depth (default 3)" },
      all: { type: "boolean", short: "a", help: "include dot files" },
    },
    toCall(pos, opts) {
      noExtra(pos, 1);
      return { tool: "ls", args: { ...(pos[0] ? { path: pos[0] } : {}), ...pick(opts, { tree: "tree", depth: "depth", all: "show_hidden" }) } };
    },
  },
  {
    name: "edit",
    synopsis: "rt edit PATH START END [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary: "replace lines START..END (1-based, inclusive; numbers, line IDs or N:ID) with standard input",
    options: editFlags,
    stdin: true,
    toCall(pos, opts) {
      need(pos, 3, "PATH, START and END");
      noExtra(pos, 3);
      return { tool: "edit_range", args: { path: pos[0], start_line: lineArg(pos[1]), end_line: lineArg(pos[2]), new_text: opts.stdin ?? "", ...pick(opts, editMap) } };
    },
  },
  {
    name: "insert",
    synopsis: "rt insert PATH LINE [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary: "insert standard input before LINE (LINE = line count + 1 appends)",
    options: editFlags,
    stdin: true,
    toCall(pos, opts) {
      need(pos, 2, "PATH and LINE");
      noExtra(pos, 2);
      return { tool: "insert_at", args: { path: pos[0], line: lineArg(pos[1]), new_text: opts.stdin ?? "", ...pick(opts, editMap) } };
    },
  },
  {
    name: "delete",
    synopsis: "rt delete PATH START END [--dry-run] [--show-diff] [--force]",
    summary: "delete lines START..END",
    options: editFlags,
    toCall(pos, opts) {
      need(pos, 3, "PATH, START and END");
      noExtra(pos, 3);
      return { tool: "edit_lines", args: { path: pos[0], command: "delete", start_line: lineArg(pos[1]), end_line: lineArg(pos[2]), ...pick(opts, editMap) } };
    },
  },
  {
    name: "undo",
    synopsis: "rt undo PATH",
    summary: "undo rt's last edit of PATH (refused if the file changed since)",
    options: {},
    toCall(pos) {
      need(pos, 1, "PATH");
      noExtra(pos, 1);
      return { tool: "undo_edit", args: { path: pos[0] } };
    },
  },
  {
    name: "call",
    synopsis: "rt call TOOL [--args JSON] | rt call --batch",
    summary: "call any tool with JSON arguments (stdin or --args); --batch reads JSON Lines {tool, args}",
    options: {
      args: { type: "string", help: "the tool's arguments as a JSON object (default: read from stdin)" },
      batch: { type: "boolean", help: "read {\"tool\": NAME, \"args\": {...}} lines from stdin, print one result per line" },
    },
  },
  {
    name: "tools",
    synopsis: "rt tools [--json]",
    summary: "list every tool with its aliases and description (--json: with JSON schemas)",
    options: { json: { type: "boolean", help: "print names, descriptions and schemas as JSON" } },
  },
];

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  root: { type: "string", help: "workspace root (default: RT_ROOT, else the git repository, else the current directory)" },
  profile: { type: "string", help: "dev (default), unsafe or safe-read-only (or RT_PROFILE)" },
  help: { type: "boolean", short: "h", help: "show help" },
};
