// The `rt` commands that are not a tool's (rt call, rt run, rt mcp, rt trust...), the options every
// command takes, and the shape of a command as the CLI runs it. A tool's command (rt open, rt grep...)
// comes from the tool's own file (its `cli`), read by toolCommands.ts; commands.ts lists them all.
import type { Tool } from "../../tools/types.js";

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
  /** What the value must be, for a message when it is missing ("a whole number of at least 1"). */
  accepts?: string;
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
  /** The words shown for an argument of fixed choices (scroll's direction: "+", "-"), for error messages. */
  argChoices?: Record<string, string[]>;
  /** The largest value of a number argument, for error messages ("at least 0 (and at most 50)"). */
  argMaximum?: Record<string, number>;
  /** The number an argument must be greater than (an exclusive minimum), for error messages. */
  argAbove?: Record<string, number>;
  /** The tool a tool's command calls (toolCommands.ts). */
  tool?: Tool;
}

export class UsageError extends Error {}

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

/** The commands that are not a tool's, in the order rt --help lists them (after the tools'). */
export const FACE_COMMANDS: CommandSpec[] = [
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
