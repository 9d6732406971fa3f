// The `rt` commands: each turns its command line into (tool, arguments).
// Synopses and help text live here too, so `rt --help` lists exactly what exists.

import {
  BASH_DEFAULT_TIMEOUT_S,
  BASH_MAX_TIMEOUT_S,
  GREP_MAX_CONTEXT,
  SQL_DEFAULT_ROWS,
  SQL_MAX_ROWS,
} from "../../base/limits.js";
import { shellQuote } from "../../base/text.js";

export type OptionType = "string" | "boolean";

export interface OptionSpec {
  type: OptionType;
  short?: string;
  /** Converted to a number and checked to be a whole number within [min, max]. */
  integer?: boolean;
  /** With `integer`: the least value accepted (default 0). */
  min?: number;
  /** With `integer`: the largest value accepted. */
  max?: number;
  help: string;
}

/**
 * Where the command line's paths point. On the command line, as with every Unix
 * tool, a relative path is relative to the current directory, when that
 * directory is inside the workspace root; rt's tools take paths relative to
 * the root, so the command turns its path arguments into those with `path()`.
 */
export interface PathContext {
  /** A path argument as the tools take it: relative to the root (absolute when it leads out of the root, for the tool to refuse). */
  path(p: string): string;
  /** The directory the command runs in, relative to the root, when the current directory is inside it ("." at the root); else undefined. */
  here: string | undefined;
}

export type CallArgs = Record<string, unknown>;

export interface CommandSpec {
  name: string;
  synopsis: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** The command reads its content from standard input (passed to toCall as opts.stdin). */
  stdin?: boolean;
  /** Builds the tool call, or throws UsageError. */
  toCall?: (
    pos: string[],
    opts: Record<string, string | boolean | number | undefined>,
    where: PathContext,
  ) => { tool: string; args: CallArgs };
  /** How the tool's arguments are written on this command line ("--context", "PATTERN"...), for error messages. */
  argNames?: Record<string, string>;
}

export class UsageError extends Error {}

/** Refuses a command line with fewer positionals than `names`, naming the ones missing. */
function need(pos: string[], names: string[]): void {
  if (pos.length >= names.length) return;
  const missing = names.slice(pos.length);
  const list =
    missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
  throw new UsageError(`missing ${list}`);
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
  context: {
    type: "string",
    short: "C",
    integer: true,
    max: GREP_MAX_CONTEXT,
    help: "lines of context around each match",
  },
  "before-context": {
    type: "string",
    short: "B",
    integer: true,
    max: GREP_MAX_CONTEXT,
    help: "lines of context before each match",
  },
  "after-context": {
    type: "string",
    short: "A",
    integer: true,
    max: GREP_MAX_CONTEXT,
    help: "lines of context after each match",
  },
  multiline: { type: "boolean", short: "U", help: "let matches span lines" },
  limit: { type: "string", integer: true, min: 1, help: "maximum matches shown (default 200)" },
  ids: { type: "boolean", help: "show each match's line ID" },
};
const grepMap = {
  "ignore-case": "ignore_case",
  "fixed-strings": "fixed_strings",
  context: "context",
  "before-context": "context_before",
  "after-context": "context_after",
  multiline: "multiline",
  limit: "limit",
  ids: "ids",
};

const editFlags: Record<string, OptionSpec> = {
  "dry-run": { type: "boolean", help: "show the unified diff, write nothing" },
  "show-diff": { type: "boolean", help: "add the file's unified diff (or RT_AUTO_DIFF=1)" },
  force: { type: "boolean", help: "write even if the edit adds syntax errors" },
  indent: { type: "string", integer: true, help: "indentation of the new content, in columns" },
};

/** Tool argument → how it is written on the command line, from an option map (for error messages). */
function flagNames(map: Record<string, string>, positionals: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { ...positionals };
  for (const [flag, arg] of Object.entries(map)) out[arg] = `--${flag}`;
  return out;
}
const editMap = { "dry-run": "dry_run", "show-diff": "show_diff", force: "force", indent: "indent_level" };

/** A line argument: a number stays a number; IDs and N:ID stay strings. */
function lineArg(s: string): number | string {
  return /^\d+$/.test(s) ? Number(s) : s;
}

/** Options of the agent faces (rt run, rt chat). */
const AGENT_OPTIONS: Record<string, OptionSpec> = {
  model: {
    type: "string",
    short: "m",
    help: "provider/model: ollama/qwen2.5-coder:7b, openai/gpt-4.1, anthropic/claude-sonnet-4-5, local/qwen3-4b, local/./model.gguf, scripted/answers.json... (default: config, else a local Ollama)",
  },
  protocol: {
    type: "string",
    help: "tools (native tool calls), text (fenced bash blocks of rt commands) or auto (default: tools, falling back to text)",
  },
  "tool-choice": {
    type: "string",
    help: "auto (default: answer or call tools), required (call a tool first), none (no tool calls)",
  },
  yes: {
    type: "boolean",
    short: "y",
    help: "allow downloading the default local model when no other model is configured",
  },
  approval: {
    type: "string",
    help: "ask (default), auto-edit (edits approved, commands ask), auto (all approved), never (deny what needs approval), plan (read-only)",
  },
  "max-turns": {
    type: "string",
    integer: true,
    min: 1,
    help: "model requests per prompt before stopping (default 50)",
  },
  continue: { type: "boolean", short: "c", help: "continue the most recent session of this project" },
  resume: { type: "string", help: "continue session ID (rt sessions lists them)" },
  "fork-session": {
    type: "boolean",
    help: "with --continue or --resume: continue in a new session, a copy of that one (a branch; the original is kept)",
  },
  "base-url": {
    type: "string",
    help: "the model server's base URL, e.g. http://127.0.0.1:8000/v1 (default: per provider, or env/config)",
  },
  "api-key": { type: "string", help: "API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY / config)" },
  "seed-names": {
    type: "boolean",
    help: "also offer the seed-compatibility tools edit_range, insert_at, edit_file, grep_file, scroll (agent.seed_tools)",
  },
};

export const COMMANDS: CommandSpec[] = [
  {
    name: "open",
    synopsis: "rt open PATH[:LINE|:START-END]",
    summary: "show a 100-line window of a file (centered on LINE, or START-END up to 200 lines)",
    options: {},
    argNames: { path: "PATH" },
    toCall(pos, _opts, where) {
      need(pos, ["PATH"]);
      noExtra(pos, 1);
      return { tool: "open", args: { path: where.path(pos[0]) } };
    },
  },
  {
    name: "scroll",
    synopsis: "rt scroll PATH +|-",
    summary: "show the next (+) or previous (-) window after the last open of PATH",
    options: {},
    argNames: { path: "PATH", direction: "the direction (+ or -)" },
    toCall(pos, _opts, where) {
      need(pos, ["PATH", "the direction (+ or -)"]);
      noExtra(pos, 2);
      if (!["+", "-", "up", "down"].includes(pos[1])) throw new UsageError(`direction must be + or -, not "${pos[1]}"`);
      return { tool: "scroll", args: { path: where.path(pos[0]), direction: pos[1] } };
    },
  },
  {
    name: "read",
    synopsis: "rt read PATH [--offset N] [--limit N] [--ids] [--pages RANGE]",
    summary:
      "print a file with numbered lines (2000 lines / 50 KB at a time), optionally with line IDs; an image's type, size and pixels; a PDF's text",
    options: {
      offset: { type: "string", integer: true, min: 1, help: "first line to show (1-based)" },
      limit: { type: "string", integer: true, min: 1, help: "number of lines (default 2000)" },
      ids: { type: "boolean", help: "show persistent line IDs as [LID:xxxx]" },
      pages: { type: "string", help: 'PDF pages: "3", "1-5", "1-3,8" (at most 20; default the first 20)' },
    },
    argNames: flagNames({ offset: "offset", limit: "limit", ids: "ids", pages: "pages" }, { path: "PATH" }),
    toCall(pos, opts, where) {
      need(pos, ["PATH"]);
      noExtra(pos, 1);
      return {
        tool: "read",
        args: {
          path: where.path(pos[0]),
          ...pick(opts, { offset: "offset", limit: "limit", ids: "ids", pages: "pages" }),
        },
      };
    },
  },
  {
    name: "find",
    synopsis: "rt find PATTERN [DIR] [--limit N]",
    summary:
      "find files whose name contains PATTERN, or match a glob such as '**/*.ts' (in DIR, default the current directory)",
    options: { limit: { type: "string", integer: true, min: 1, help: "maximum paths listed (default 200)" } },
    argNames: flagNames({ limit: "limit" }, { pattern: "PATTERN", path: "DIR" }),
    toCall(pos, opts, where) {
      need(pos, ["PATTERN"]);
      noExtra(pos, 2);
      const dir = pos[1] !== undefined ? where.path(pos[1]) : where.here;
      return {
        tool: "find",
        args: {
          pattern: pos[0],
          ...(dir !== undefined && dir !== "." ? { path: dir } : {}),
          ...pick(opts, { limit: "limit" }),
        },
      };
    },
  },
  {
    name: "grep",
    synopsis: "rt grep PATTERN [PATH] [-i] [-F] [-C N] [-A N] [-B N] [-U] [--glob G] [-l|-c] [--limit N] [--ids]",
    summary:
      "search file contents with ripgrep (in PATH, default the current directory): path:line: text, in path order; exit 1 when nothing matched",
    options: {
      ...grepFlags,
      glob: { type: "string", short: "g", help: "only files matching this glob" },
      "files-with-matches": { type: "boolean", short: "l", help: "list matching files only" },
      count: { type: "boolean", short: "c", help: "count matches per file" },
    },
    argNames: flagNames({ ...grepMap, glob: "glob" }, { pattern: "PATTERN", path: "PATH" }),
    toCall(pos, opts, where) {
      need(pos, ["PATTERN"]);
      noExtra(pos, 2);
      if (opts["files-with-matches"] && opts.count) throw new UsageError("-l and -c cannot be combined");
      const mode = opts["files-with-matches"] ? "files_with_matches" : opts.count ? "count" : undefined;
      const target = pos[1] !== undefined ? where.path(pos[1]) : where.here;
      return {
        tool: "grep",
        args: {
          pattern: pos[0],
          ...(target !== undefined && target !== "." ? { path: target } : {}),
          ...pick(opts, { ...grepMap, glob: "glob" }),
          ...(mode ? { output_mode: mode } : {}),
        },
      };
    },
  },
  {
    name: "grep-file",
    synopsis: "rt grep-file PATTERN PATH [-i] [-F] [-C N] [-A N] [-B N] [-U] [--limit N] [--ids]",
    summary: "search one file: <line>: text; exit 1 when nothing matched",
    options: grepFlags,
    argNames: flagNames(grepMap, { pattern: "PATTERN", path: "PATH" }),
    toCall(pos, opts, where) {
      need(pos, ["PATTERN", "PATH"]);
      noExtra(pos, 2);
      return { tool: "grep_file", args: { pattern: pos[0], path: where.path(pos[1]), ...pick(opts, grepMap) } };
    },
  },
  {
    name: "ls",
    synopsis: "rt ls [DIR] [--tree] [--depth N] [-a]",
    summary: "list a directory (default the current one), directories first, or a tree of it",
    options: {
      tree: { type: "boolean", short: "t", help: "recursive tree" },
      depth: { type: "string", integer: true, min: 1, help: "tree depth (default 3)" },
      all: { type: "boolean", short: "a", help: "include dot files" },
    },
    argNames: flagNames({ tree: "tree", depth: "depth", all: "show_hidden" }, { path: "DIR" }),
    toCall(pos, opts, where) {
      noExtra(pos, 1);
      const dir = pos[0] !== undefined ? where.path(pos[0]) : where.here;
      return {
        tool: "ls",
        args: {
          ...(dir !== undefined && dir !== "." ? { path: dir } : {}),
          ...pick(opts, { tree: "tree", depth: "depth", all: "show_hidden" }),
        },
      };
    },
  },
  {
    name: "edit",
    synopsis: "rt edit PATH START END [--delete] [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary:
      "replace lines START..END (1-based, inclusive; numbers, line IDs or N:ID) with standard input; empty input is refused unless --delete",
    options: {
      ...editFlags,
      delete: { type: "boolean", help: "delete the lines (standard input must be empty; same as rt delete)" },
    },
    stdin: true,
    argNames: flagNames(editMap, { path: "PATH", start_line: "START", end_line: "END", new_text: "standard input" }),
    toCall(pos, opts, where) {
      need(pos, ["PATH", "START", "END"]);
      noExtra(pos, 3);
      const text = typeof opts.stdin === "string" ? opts.stdin : "";
      if (opts.delete && text !== "")
        throw new UsageError(
          "--delete takes no standard input: the lines are removed, not replaced; drop --delete to replace them",
        );
      if (!opts.delete && text === "") {
        throw new UsageError(
          `standard input is empty, which would delete lines ${pos[1]}-${pos[2]}; to delete them pass --delete (or run rt delete ${shellQuote(pos[0])} ${pos[1]} ${pos[2]})`,
        );
      }
      return {
        tool: "edit_range",
        args: {
          path: where.path(pos[0]),
          start_line: lineArg(pos[1]),
          end_line: lineArg(pos[2]),
          new_text: text,
          ...pick(opts, editMap),
        },
      };
    },
  },
  {
    name: "insert",
    synopsis: "rt insert PATH LINE [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary: "insert standard input before LINE (LINE = line count + 1 appends)",
    options: editFlags,
    stdin: true,
    argNames: flagNames(editMap, { path: "PATH", line: "LINE", new_text: "standard input" }),
    toCall(pos, opts, where) {
      need(pos, ["PATH", "LINE"]);
      noExtra(pos, 2);
      const text = typeof opts.stdin === "string" ? opts.stdin : "";
      if (text === "") throw new UsageError("standard input is empty: nothing to insert");
      return {
        tool: "insert_at",
        args: { path: where.path(pos[0]), line: lineArg(pos[1]), new_text: text, ...pick(opts, editMap) },
      };
    },
  },
  {
    name: "delete",
    synopsis: "rt delete PATH START END [--dry-run] [--show-diff] [--force]",
    summary: "delete lines START..END",
    options: editFlags,
    argNames: flagNames(editMap, { path: "PATH", start_line: "START", end_line: "END" }),
    toCall(pos, opts, where) {
      need(pos, ["PATH", "START", "END"]);
      noExtra(pos, 3);
      return {
        tool: "edit_lines",
        args: {
          path: where.path(pos[0]),
          command: "delete",
          start_line: lineArg(pos[1]),
          end_line: lineArg(pos[2]),
          ...pick(opts, editMap),
        },
      };
    },
  },
  {
    name: "undo",
    synopsis: "rt undo PATH",
    summary: "undo rt's last edit of PATH (refused if the file changed since)",
    options: {},
    argNames: { path: "PATH" },
    toCall(pos, _opts, where) {
      need(pos, ["PATH"]);
      noExtra(pos, 1);
      return { tool: "undo_edit", args: { path: where.path(pos[0]) } };
    },
  },
  {
    name: "sql",
    synopsis: 'rt sql "SELECT ..." [--connection NAME] [--limit N]',
    summary: "run one read-only SQL query on a configured database (SQLite, PostgreSQL, Oracle, Vertica); ASCII table",
    options: {
      connection: { type: "string", help: "database connection name (default: the only or default one)" },
      limit: {
        type: "string",
        integer: true,
        min: 1,
        max: SQL_MAX_ROWS,
        help: `rows shown (default ${SQL_DEFAULT_ROWS}, at most ${SQL_MAX_ROWS})`,
      },
    },
    argNames: flagNames({ connection: "connection", limit: "limit" }, { sql: "SQL" }),
    toCall(pos, opts) {
      need(pos, ["SQL (one statement, quoted)"]);
      noExtra(pos, 1);
      return { tool: "sql_query", args: { sql: pos[0], ...pick(opts, { connection: "connection", limit: "limit" }) } };
    },
  },
  {
    name: "sql-tables",
    synopsis: "rt sql-tables [PATTERN] [--connection NAME]",
    summary: "list a database's tables and views (PATTERN: LIKE pattern or substring)",
    options: { connection: { type: "string", help: "database connection name (default: the only or default one)" } },
    argNames: flagNames({ connection: "connection" }, { pattern: "PATTERN" }),
    toCall(pos, opts) {
      noExtra(pos, 1);
      return {
        tool: "sql_tables",
        args: { ...(pos[0] ? { pattern: pos[0] } : {}), ...pick(opts, { connection: "connection" }) },
      };
    },
  },
  {
    name: "sql-describe",
    synopsis: "rt sql-describe TABLE [--connection NAME]",
    summary: "show a table's columns: type, nullable, default, primary key",
    options: { connection: { type: "string", help: "database connection name (default: the only or default one)" } },
    argNames: flagNames({ connection: "connection" }, { table: "TABLE" }),
    toCall(pos, opts) {
      need(pos, ["TABLE"]);
      noExtra(pos, 1);
      return { tool: "sql_describe", args: { table: pos[0], ...pick(opts, { connection: "connection" }) } };
    },
  },
  {
    name: "bash",
    synopsis: "rt bash [--timeout S] [--cwd DIR] COMMAND | rt bash -- WORD...",
    summary:
      "run a shell command in the workspace (in the current directory when it is inside the root; read-only sandbox in safe-read-only or with --sandbox); exits with its exit code",
    options: {
      timeout: {
        type: "string",
        integer: true,
        min: 1,
        max: BASH_MAX_TIMEOUT_S,
        help: `seconds before the whole process group is killed (default ${BASH_DEFAULT_TIMEOUT_S}, max ${BASH_MAX_TIMEOUT_S})`,
      },
      cwd: {
        type: "string",
        help: "directory to run in, inside the workspace root (default: the current directory, or the root when outside it)",
      },
    },
    argNames: flagNames({ timeout: "timeout", cwd: "working_dir" }, { command: "COMMAND" }),
    toCall(pos, opts, where) {
      need(pos, ["COMMAND"]);
      // One argument is a command line; several (after --) are words, quoted back into one.
      const command = pos.length === 1 ? pos[0] : pos.map(shellQuote).join(" ");
      const dir = typeof opts.cwd === "string" ? where.path(opts.cwd) : where.here;
      return {
        tool: "bash",
        args: {
          command,
          ...pick(opts, { timeout: "timeout" }),
          ...(dir !== undefined && dir !== "." ? { working_dir: dir } : {}),
        },
      };
    },
  },
  // Code intelligence.
  {
    name: "symbols",
    synopsis: "rt symbols PATH | rt symbols --grep NAME [DIR]",
    summary:
      "outline a file (classes, functions, methods with line ranges and line IDs), or find where NAME is defined",
    options: { grep: { type: "string", help: "list the definitions whose name contains NAME (Class.method works)" } },
    argNames: flagNames({ grep: "grep" }, { path: "PATH" }),
    toCall(pos, opts, where) {
      noExtra(pos, 1);
      if (typeof opts.grep === "string") {
        const dir = pos[0] !== undefined ? where.path(pos[0]) : where.here;
        return {
          tool: "symbols",
          args: { grep: opts.grep, ...(dir !== undefined && dir !== "." ? { path: dir } : {}) },
        };
      }
      need(pos, ["PATH"]);
      return { tool: "symbols", args: { path: where.path(pos[0]) } };
    },
  },
  {
    name: "ast-grep",
    synopsis: "rt ast-grep PATTERN [PATH] [--lang L] [--rewrite R [--apply]] [--limit N]",
    summary:
      "structural search with an ast-grep pattern ($X one node, $$$X many): path:line: text; with --rewrite, the diff (--apply writes it)",
    options: {
      lang: { type: "string", help: "language of the pattern (default: from the file names)" },
      rewrite: { type: "string", help: "replacement for each match; may use the pattern's $VARs" },
      apply: { type: "boolean", help: "write the rewrite (default: show the diff only)" },
      limit: { type: "string", integer: true, min: 1, help: "matches shown (default 200)" },
    },
    argNames: flagNames({ lang: "lang", rewrite: "rewrite", limit: "limit" }, { pattern: "PATTERN", path: "PATH" }),
    toCall(pos, opts, where) {
      need(pos, ["PATTERN"]);
      noExtra(pos, 2);
      if (opts.apply && opts.rewrite === undefined)
        throw new UsageError("--apply needs --rewrite: there is nothing to write without one");
      const target = pos[1] !== undefined ? where.path(pos[1]) : where.here;
      return {
        tool: "ast_grep",
        args: {
          pattern: pos[0],
          ...(target !== undefined && target !== "." ? { path: target } : {}),
          ...pick(opts, { lang: "lang", rewrite: "rewrite", limit: "limit" }),
          ...(opts.rewrite !== undefined ? { dry_run: opts.apply !== true } : {}),
        },
      };
    },
  },
  {
    name: "lsp",
    synopsis:
      "rt lsp diagnostics PATH | rt lsp definition|references|hover PATH LINE COLUMN|SYMBOL | rt lsp symbols PATH | rt lsp workspace_symbols QUERY [PATH]",
    summary:
      "ask a language server (TypeScript/JavaScript, Python, configured ones); diagnostics print path:line:col: severity: message and exit 1 when there are errors",
    options: {},
    argNames: {
      operation: "OPERATION",
      path: "PATH",
      line: "LINE",
      column: "COLUMN",
      symbol: "SYMBOL",
      query: "QUERY",
    },
    toCall(pos, _opts, where) {
      need(pos, ["OPERATION"]);
      const operation = pos[0].replace(/-/g, "_");
      if (operation === "workspace_symbols") {
        need(pos, ["OPERATION", "QUERY"]);
        noExtra(pos, 3);
        return {
          tool: "lsp",
          args: { operation, query: pos[1], ...(pos[2] !== undefined ? { path: where.path(pos[2]) } : {}) },
        };
      }
      need(pos, ["OPERATION", "PATH"]);
      noExtra(pos, 4);
      const args: Record<string, unknown> = { operation, path: where.path(pos[1]) };
      if (pos[2] !== undefined) {
        if (!/^\d+$/.test(pos[2])) throw new UsageError(`LINE must be a line number, not "${pos[2]}"`);
        args.line = Number(pos[2]);
      }
      if (pos[3] !== undefined) {
        if (/^\d+$/.test(pos[3])) args.column = Number(pos[3]);
        else args.symbol = pos[3];
      }
      return { tool: "lsp", args };
    },
  },
  {
    name: "call",
    synopsis: "rt call TOOL [--args JSON] | rt call --batch",
    summary: "call any tool with JSON arguments (stdin or --args); --batch reads JSON Lines {tool, args}",
    options: {
      args: { type: "string", help: "the tool's arguments as a JSON object (default: read from stdin)" },
      batch: {
        type: "boolean",
        help: 'read {"tool": NAME, "args": {...}} lines from stdin, print one result per line',
      },
    },
  },
  {
    name: "tools",
    synopsis: "rt tools [--json] [--check]",
    summary:
      "list every tool with its aliases and description (--json: with JSON schemas); --check: check custom tool definitions and run their tests",
    options: {
      json: { type: "boolean", help: "print names, descriptions and schemas as JSON" },
      check: {
        type: "boolean",
        help: "check the custom tool definitions (.rt/tools, ~/.config/rt/tools): problems by file and field, each tool's tests run in the sandbox",
      },
    },
  },
  {
    name: "tool",
    synopsis: "rt tool NAME [--ARG VALUE ...] [--args JSON] [--json]",
    summary:
      "call any tool, custom tools included, with its arguments as options read from its schema: --ARG VALUE, --FLAG / --no-FLAG, a repeated option for an array, JSON for an object; rt tool NAME --help shows the tool's schema",
    options: {},
  },
  {
    name: "mcp",
    synopsis:
      "rt mcp [--http [--port N] [--host ADDR] [--no-auth]] [--seed-names] [--agent [--model M]] | rt mcp list [--json] | rt mcp call SERVER TOOL --args JSON | rt mcp login|logout SERVER",
    summary:
      "serve every tool to an MCP client over stdio, or Streamable HTTP on 127.0.0.1 (--http); list: your MCP servers, their state and tools; call: one tool of one of them",
    options: {
      args: { type: "string", help: "rt mcp call: the tool's arguments as a JSON object" },
      json: { type: "boolean", help: "rt mcp list: as JSON" },
      "seed-names": {
        type: "boolean",
        help: "also list the older names some clients call tools by (open_file_chunk, scroll_file, find_file, search_dir, search_file) and the tools edit_range, insert_at, edit_file",
      },
      http: { type: "boolean", help: "serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio" },
      port: { type: "string", integer: true, help: "HTTP port (default 7341; 0 picks a free one)" },
      host: {
        type: "string",
        help: "listen address (default 127.0.0.1; anything else is reachable by others: a warning is printed)",
      },
      "no-auth": {
        type: "boolean",
        help: "serve HTTP without the bearer token (any local user could run tools as you; a warning is printed)",
      },
      agent: {
        type: "boolean",
        help: "also offer rt_agent: rt's own agent as one tool (prompt, approval, session_id), for other agents to delegate to",
      },
      model: AGENT_OPTIONS.model!,
    },
  },
  {
    name: "run",
    synopsis:
      'rt run "PROMPT" [--model provider/model] [--output-format text|json|stream-json]   (also: rt -p "PROMPT")',
    summary:
      "the agent, one-shot: work on PROMPT with rt's tools, print the final answer (exit 0 done, 1 error, 2 no model server)",
    options: {
      ...AGENT_OPTIONS,
      "output-format": {
        type: "string",
        help: "text (the final answer), json (one result object) or stream-json (every event as a JSON line)",
      },
    },
  },
  {
    name: "chat",
    synopsis: "rt chat [--model provider/model] [--continue | --resume ID] [--plain]",
    summary:
      "the agent, interactive: full-screen on a terminal (also plain `rt`), else a line REPL; streaming answers, approvals, /compact, /clear, /model, /sessions",
    options: {
      ...AGENT_OPTIONS,
      plain: {
        type: "boolean",
        help: "the line REPL instead of the full-screen UI (the default when input or output is not a terminal)",
      },
    },
  },
  {
    name: "acp",
    synopsis: "rt acp [--model provider/model] [--approval MODE]",
    summary: "the agent for editors that speak the Agent Client Protocol (Zed, JetBrains, Neovim, VS Code), over stdio",
    options: {
      model: AGENT_OPTIONS.model!,
      approval: AGENT_OPTIONS.approval!,
      protocol: AGENT_OPTIONS.protocol!,
      "max-turns": AGENT_OPTIONS["max-turns"]!,
      "base-url": AGENT_OPTIONS["base-url"]!,
      "api-key": AGENT_OPTIONS["api-key"]!,
    },
  },
  {
    name: "trust",
    synopsis: "rt trust [DIR] | rt trust --show [DIR] | rt trust --list | rt trust --revoke [DIR]",
    summary:
      "trust a folder (default: the workspace root): its .rt/config.json then applies in full (provider hosts and keys, approvals, databases...) and its extension files (.mcp.json, .rt/tools, commands, agents) are read, as they are now",
    options: {
      show: {
        type: "boolean",
        help: "show what trusting the folder would enable and what changed since it was trusted, without trusting it",
      },
      list: { type: "boolean", help: "list the trusted folders" },
      revoke: { type: "boolean", help: "stop trusting the folder (as rt untrust)" },
    },
  },
  {
    name: "untrust",
    synopsis: "rt untrust [DIR]",
    summary: "stop trusting a folder: the keys of its .rt/config.json that need trust are ignored again",
    options: {},
  },
  {
    name: "models",
    synopsis: "rt models [--json] | rt models pull NAME | rt models rm NAME",
    summary:
      "local GGUF models for --model local/NAME: those downloaded and the catalogue; pull downloads one (resumable, SHA-256 checked) into your cache directory, rm removes it",
    options: { json: { type: "boolean", help: "print the list as JSON" } },
  },
  {
    name: "sessions",
    synopsis: "rt sessions [--json]",
    summary: "list this project's agent sessions (.rt/sessions/), most recent first",
    options: { json: { type: "boolean", help: "print them as JSON" } },
  },
  {
    name: "rewind",
    synopsis: "rt rewind [--to N] [--code | --conversation] [--force] [--session ID]",
    summary:
      "rewind the last agent session to just before its prompt N: the files (from the checkpoint taken then) and the conversation (a new branch; the old one is kept); without --to, list the points",
    options: {
      to: {
        type: "string",
        integer: true,
        min: 1,
        help: "the point to rewind to (rt rewind or rt sessions lists them)",
      },
      code: { type: "boolean", help: "rewind the files only" },
      conversation: { type: "boolean", help: "rewind the conversation only" },
      force: {
        type: "boolean",
        help: "also restore files changed outside rt since the checkpoint (otherwise named; asked on a terminal, refused without one)",
      },
      session: { type: "string", help: "the session to rewind (default: the most recent)" },
    },
  },
  {
    name: "agents",
    synopsis: "rt agents [--json]",
    summary:
      "list the subagent types the agent's task tool can start: built-ins (general-purpose, Explore, Plan) and definitions from .rt/agents, .claude/agents and your own",
    options: { json: { type: "boolean", help: "print them as JSON" } },
  },
  {
    name: "export",
    synopsis: "rt export ID [--output FILE]",
    summary: "write an agent session's whole conversation as markdown",
    options: { output: { type: "string", short: "o", help: "write to FILE instead of standard output" } },
  },
];

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  root: {
    type: "string",
    help: "workspace root (default: RT_ROOT, else the git repository, else the current directory)",
  },
  profile: { type: "string", help: "dev (default), unsafe or safe-read-only (or RT_PROFILE)" },
  sandbox: {
    type: "boolean",
    help: "run shell commands in the read-only sandbox in the dev profile too (always on in safe-read-only)",
  },
  "allow-net": { type: "boolean", help: "let sandboxed shell commands use the network" },
  out: { type: "string", help: "directory where write_output creates files (default .rt/out/)" },
  help: { type: "boolean", short: "h", help: "show help" },
};
