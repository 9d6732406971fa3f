// The `rt` commands: each turns its command line into (tool, arguments).
// Synopses and help text live here too, so `rt --help` lists exactly what exists.

import type { ToolResult } from "../../tools/types.js";

export type OptionType = "string" | "boolean";

export interface OptionSpec {
  type: OptionType;
  short?: string;
  /** Converted to a number and checked to be a non-negative integer. */
  integer?: boolean;
  /** With `integer`: the least value accepted (default 0). */
  min?: number;
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
  /** Prints the result itself and returns the exit code (undefined: the usual rendering). */
  render?: (result: ToolResult, io: { stdout: (s: string) => void; stderr: (s: string) => void }) => number | undefined;
}

export class UsageError extends Error {}

/** Quotes a word for bash when it needs it. */
function shellQuote(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

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

/** Options of the agent faces (rt run, rt chat). */
const AGENT_OPTIONS: Record<string, OptionSpec> = {
  model: { type: "string", short: "m", help: "provider/model: ollama/qwen2.5-coder:7b, openai/gpt-4.1, anthropic/claude-sonnet-4-5... (default: config, else a local Ollama)" },
  protocol: { type: "string", help: "tools (native tool calls), text (fenced bash blocks of rt commands) or auto (default: tools, falling back to text)" },
  approval: { type: "string", help: "ask (default), auto-edit (edits approved, commands ask), auto (all approved), never (deny what needs approval), plan (read-only)" },
  "max-turns": { type: "string", integer: true, min: 1, help: "model requests per prompt before stopping (default 50)" },
  continue: { type: "boolean", short: "c", help: "continue the most recent session of this project" },
  resume: { type: "string", help: "continue session ID (rt sessions lists them)" },
  "base-url": { type: "string", help: "the model server's base URL, e.g. http://127.0.0.1:8000/v1 (default: per provider, or env/config)" },
  "api-key": { type: "string", help: "API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY / config)" },
};

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
    name: "sql",
    synopsis: 'rt sql "SELECT ..." [--connection NAME] [--limit N]',
    summary: "run one read-only SQL query on a configured database (SQLite, PostgreSQL, Oracle, Vertica); ASCII table",
    options: {
      connection: { type: "string", help: "database connection name (default: the only or default one)" },
      limit: { type: "string", integer: true, help: "rows shown (default 100)" },
    },
    toCall(pos, opts) {
      need(pos, 1, "SQL (one statement, quoted)");
      noExtra(pos, 1);
      return { tool: "sql_query", args: { sql: pos[0], ...pick(opts, { connection: "connection", limit: "limit" }) } };
    },
  },
  {
    name: "sql-tables",
    synopsis: "rt sql-tables [PATTERN] [--connection NAME]",
    summary: "list a database's tables and views (PATTERN: LIKE pattern or substring)",
    options: { connection: { type: "string", help: "database connection name (default: the only or default one)" } },
    toCall(pos, opts) {
      noExtra(pos, 1);
      return { tool: "sql_tables", args: { ...(pos[0] ? { pattern: pos[0] } : {}), ...pick(opts, { connection: "connection" }) } };
    },
  },
  {
    name: "sql-describe",
    synopsis: "rt sql-describe TABLE [--connection NAME]",
    summary: "show a table's columns: type, nullable, default, primary key",
    options: { connection: { type: "string", help: "database connection name (default: the only or default one)" } },
    toCall(pos, opts) {
      need(pos, 1, "TABLE");
      noExtra(pos, 1);
      return { tool: "sql_describe", args: { table: pos[0], ...pick(opts, { connection: "connection" }) } };
    },
  },
  {
    name: "bash",
    synopsis: "rt bash [--timeout S] [--cwd DIR] COMMAND | rt bash -- WORD...",
    summary: "run a shell command in the workspace (read-only sandbox in safe-read-only or with --sandbox); exits with its exit code",
    options: {
      timeout: { type: "string", integer: true, help: "seconds before the whole process group is killed (default 120, max 600)" },
      cwd: { type: "string", help: "directory to run in, inside the workspace root (default: the root)" },
    },
    toCall(pos, opts) {
      need(pos, 1, "COMMAND");
      // One argument is a command line; several (after --) are words, quoted back into one.
      const command = pos.length === 1 ? pos[0] : pos.map(shellQuote).join(" ");
      return { tool: "bash", args: { command, ...pick(opts, { timeout: "timeout", cwd: "working_dir" }) } };
    },
    render(result, io) {
      if (typeof result.stdout !== "string" || typeof result.stderr !== "string") return undefined; // refused or never started
      io.stdout(result.stdout);
      io.stderr(result.stderr);
      if (result.timed_out) {
        io.stderr(`rt bash: ${result.error}\n`);
        return 124;
      }
      return typeof result.exit_code === "number" ? result.exit_code : 1;
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
  {
    name: "mcp",
    synopsis: "rt mcp [--http [--port N] [--host ADDR] [--no-auth]]",
    summary: "serve every tool to an MCP client over stdio, or Streamable HTTP on 127.0.0.1 (--http)",
    options: {
      http: { type: "boolean", help: "serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio" },
      port: { type: "string", integer: true, help: "HTTP port (default 7341; 0 picks a free one)" },
      host: { type: "string", help: "listen address (default 127.0.0.1; anything else is reachable by others: a warning is printed)" },
      "no-auth": { type: "boolean", help: "serve HTTP without the bearer token (any local user could run tools as you; a warning is printed)" },
    },
  },
  {
    name: "run",
    synopsis: 'rt run "PROMPT" [--model provider/model] [--output-format text|json|stream-json]   (also: rt -p "PROMPT")',
    summary: "the agent, one-shot: work on PROMPT with rt's tools, print the final answer (exit 0 done, 1 error, 2 no model server)",
    options: {
      ...AGENT_OPTIONS,
      "output-format": { type: "string", help: "text (the final answer), json (one result object) or stream-json (every event as a JSON line)" },
    },
  },
  {
    name: "chat",
    synopsis: "rt chat [--model provider/model] [--continue | --resume ID]",
    summary: "the agent, interactive: a REPL with streaming answers, approvals, /compact, /clear, /model, /sessions",
    options: AGENT_OPTIONS,
  },
  {
    name: "trust",
    synopsis: "rt trust [DIR] | rt trust --list | rt trust --revoke [DIR]",
    summary: "trust a folder (default: the workspace root): its .rt/config.json then applies in full (provider hosts and keys, approvals, databases...)",
    options: {
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
    name: "sessions",
    synopsis: "rt sessions [--json]",
    summary: "list this project's agent sessions (.rt/sessions/), most recent first",
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
  root: { type: "string", help: "workspace root (default: RT_ROOT, else the git repository, else the current directory)" },
  profile: { type: "string", help: "dev (default), unsafe or safe-read-only (or RT_PROFILE)" },
  sandbox: { type: "boolean", help: "run shell commands in the read-only sandbox in the dev profile too (always on in safe-read-only)" },
  "allow-net": { type: "boolean", help: "let sandboxed shell commands use the network" },
  out: { type: "string", help: "directory where write_output creates files (default .rt/out/)" },
  help: { type: "boolean", short: "h", help: "show help" },
};
