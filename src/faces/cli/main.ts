// `rt` on the command line: parse, call the tool through the policy, print
// the result for a person. Exit codes: 0 success, 1 tool error, 2 usage error.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  FACE_COMMANDS,
  GLOBAL_OPTIONS,
  UsageError,
  type CommandSpec,
  type OptionSpec,
  type PathContext,
} from "./faceCommands.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Tool, ToolProgress, ToolResult } from "../../tools/types.js";
import type { ArgumentIssue, ToolLookup } from "../../tools/policy.js";
import type { Io } from "../../ui/io.js";
import { anyToolDir } from "../../extensions/toolDirs.js";

const VERSION = "0.1.0";

function optionLine(name: string, o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? " VALUE" : ""}`;
  return `  ${flag.padEnd(28)} ${o.help}`;
}

/** rt --help: every command (which loads every tool's module, for their commands). */
export async function mainHelp(): Promise<string> {
  const { COMMANDS } = await import("./commands.js");
  return [
    "rt — navigate, search and edit a codebase; the tool layer of the rt coding agent",
    "",
    "Usage: rt [--root DIR] [--profile P] COMMAND [ARGS]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.synopsis}\n      ${c.summary}`),
    "",
    "Global options:",
    ...Object.entries(GLOBAL_OPTIONS).map(([n, o]) => optionLine(n, o)),
    "",
    "rt COMMAND --help shows a command's options.",
  ].join("\n");
}

export function commandHelp(c: CommandSpec): string {
  const opts = Object.entries(c.options);
  return [
    `Usage: ${c.synopsis}`,
    "",
    c.summary,
    ...(opts.length ? ["", "Options:", ...opts.map(([n, o]) => optionLine(n, o))] : []),
    "",
    "Global options:",
    ...Object.entries(GLOBAL_OPTIONS).map(([n, o]) => optionLine(n, o)),
  ].join("\n");
}

type Parsed = { values: Record<string, string | boolean | number | undefined>; positionals: string[] };

/** "a whole number from 1 to 50" / "of at least 1" / "" for an integer option's range. */
function range(o: OptionSpec): string {
  const min = o.min ?? 0;
  if (o.max !== undefined) return ` from ${min} to ${o.max}`;
  return min > 0 ? ` of at least ${min}` : "";
}

/**
 * `--limit -1`, `-C -3`: a value that looks like a negative number is taken as
 * the option's value (util.parseArgs would call it ambiguous), so the error can
 * say what is valid.
 */
function attachNegativeValues(argv: string[], options: Record<string, OptionSpec>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    const long = a.startsWith("--") && !a.includes("=") ? options[a.slice(2)] : undefined;
    const short = /^-[A-Za-z]$/.test(a) ? Object.entries(options).find(([, o]) => o.short === a[1]) : undefined;
    const name = long ? a.slice(2) : short?.[0];
    const spec = long ?? short?.[1];
    if (spec?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function parse(argv: string[], options: Record<string, OptionSpec>): Parsed {
  const spec: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [n, o] of Object.entries(options)) spec[n] = o.short ? { type: o.type, short: o.short } : { type: o.type };
  let res;
  try {
    res = parseArgs({ args: attachNegativeValues(argv, options), options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(optionError((e as Error).message.split("\n")[0].replace(/^TypeError \[\w+\]: /, ""), options));
  }
  const values: Parsed["values"] = { ...(res.values as Record<string, string | boolean>) };
  for (const [n, o] of Object.entries(options)) {
    if (o.integer && typeof values[n] === "string") {
      const v = values[n] as string;
      const num = Number(v);
      if (!/^-?\d+$/.test(v)) throw new UsageError(`--${n} must be a whole number${range(o)}, not "${v}"`);
      if (num < (o.min ?? 0))
        throw new UsageError(
          `--${n} must be at least ${o.min ?? 0}${o.max !== undefined ? ` (and at most ${o.max})` : ""}, not ${v}`,
        );
      if (o.max !== undefined && num > o.max) throw new UsageError(`--${n} must be at most ${o.max}, not ${v}`);
      values[n] = num;
    }
  }
  return { values, positionals: res.positionals };
}

/** util.parseArgs' messages, in the words of rt's own: the option and what it takes. */
function optionError(message: string, options: Record<string, OptionSpec>): string {
  const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec(message);
  if (unknown) {
    const given = unknown[2];
    const names = Object.keys(options).filter((n) => n !== "help");
    const close = closest(given, names).map((n) => `--${n}`);
    return `Unknown option '${unknown[1]}${given}'${close.length ? ` (did you mean ${orList(close)}?)` : ""}; --help lists the options`;
  }
  const missing = /^Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(message);
  if (missing) {
    const o = options[missing[1]];
    const accepts = o?.integer ? `a whole number${range(o)}` : o?.accepts;
    return `--${missing[1]} needs a value${accepts ? `: ${accepts}` : ""}`;
  }
  const ambiguous = /^Option '(?:-\w, )?--([\w-]+)' argument is ambiguous/.exec(message);
  if (ambiguous)
    return `--${ambiguous[1]} needs a value; to give one that starts with "-", write --${ambiguous[1]}=VALUE`;
  const noValue = /^Option '(?:-\w, )?--([\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `--${noValue[1]} takes no value`;
  return message;
}

/** Edit distance counting a swap of two neighbours as one edit, for suggesting the command or option meant. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The names closest to `given` (a typo or a prefix of them), nearest first, at most three. */
export function closest(given: string, names: readonly string[]): string[] {
  const scored = names
    .map((n) => ({ n, d: given.length >= 2 && n.startsWith(given) ? 1 : distance(given, n) }))
    .filter((x) => x.d <= Math.max(1, Math.min(2, Math.floor(given.length / 3))))
    .sort((x, y) => x.d - y.d || x.n.localeCompare(y.n));
  return scored.slice(0, 3).map((x) => x.n);
}

function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** One line for an unknown command: the closest command names, and where the list is. */
async function unknownCommand(name: string): Promise<string> {
  if (name.startsWith("-")) return `rt: unknown option "${name}"; rt --help lists the commands and options`;
  const { COMMANDS } = await import("./commands.js");
  const close = closest(
    name,
    COMMANDS.map((c) => c.name),
  );
  return `rt: unknown command "${name}"${close.length ? ` (did you mean ${orList(close)}?)` : ""}; rt --help lists the commands`;
}

/**
 * The command `rt NAME`: one of the face's own, or a tool's, made from that tool's file alone
 * (toolCommands.ts; loaded only for a tool's command, as it needs the tool's schema).
 */
async function findCommand(name: string): Promise<CommandSpec | undefined> {
  const own = FACE_COMMANDS.find((c) => c.name === name);
  if (own) return own;
  const { toolCommand } = await import("./toolCommands.js");
  return toolCommand(name);
}

/** Splits leading global options from the command name and its arguments. */
function splitCommand(argv: string[]): { globals: string[]; command?: string; rest: string[] } {
  const globals: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const a = argv[i];
    const name = a.startsWith("--") ? a.slice(2).split("=")[0] : undefined;
    const global = name !== undefined ? GLOBAL_OPTIONS[name] : undefined;
    if (global?.type === "string" && !a.includes("=")) {
      globals.push(a, argv[i + 1] ?? "");
      i += 2;
    } else if (global || a === "-h" || a === "--version" || a === "-V") {
      globals.push(a);
      i++;
    } else break;
  }
  // `rt -p "prompt"` (Claude Code's print mode) is `rt run "prompt"`.
  const command = argv[i] === "-p" || argv[i] === "--print" ? "run" : argv[i];
  return { globals, command, rest: argv.slice(i + 1) };
}

async function openWorkspace(values: Parsed["values"]): Promise<Workspace> {
  const { createWorkspace } = await import("../../workspace/workspace.js");
  return createWorkspace({
    root: typeof values.root === "string" ? values.root : undefined,
    profile: typeof values.profile === "string" ? (values.profile as Workspace["profile"]) : undefined,
    sandbox: values.sandbox === true ? true : undefined,
    allowNet: values["allow-net"] === true ? true : undefined,
    // --out is relative to where rt was started, not to the workspace root.
    outDir: typeof values.out === "string" ? path.resolve(values.out) : undefined,
  });
}

/** What a command that is not a tool call gets: its parsed command line and the workspace. */
export interface CommandInvocation {
  spec: CommandSpec;
  workspace: Workspace;
  positionals: string[];
  values: Parsed["values"];
  io: Io;
  readStdin: () => Promise<string | null>;
}

type CommandRun = (c: CommandInvocation) => Promise<number> | number;

/** A usage error for a command that takes no positional arguments, or undefined. */
function noPositionals(c: CommandInvocation): number | undefined {
  if (c.positionals.length === 0) return undefined;
  c.io.stderr(`rt ${c.spec.name}: unexpected argument "${c.positionals[0]}"\nUsage: ${c.spec.synopsis}\n`);
  return 2;
}

/**
 * The commands that are not one tool call, each loaded only when used; every
 * other command turns its line into a tool call (commands.ts, runToolCommand).
 */
const COMMAND_RUNS: Record<string, () => Promise<CommandRun>> = {
  call: async () => {
    const { runCall } = await import("../json/call.js");
    return async (c) => (await customTools(c), runCall(c.workspace, c.positionals, c.values, c.io, c.readStdin));
  },
  tools: async () => {
    const { listTools } = await import("./toolsList.js");
    const { toolsCheck } = await import("./extendCommands.js");
    return async (c) =>
      c.values.check
        ? toolsCheck(c.workspace, c.values.json === true, c.io)
        : (await customTools(c), c.io.stdout(listTools(c.workspace, c.values.json === true)), 0);
  },
  mcp: async () => {
    const { runMcp } = await import("../mcp/run.js");
    // `rt mcp list` / `rt mcp call`: the user's MCP servers; plain `rt mcp` serves rt's own tools.
    return async (c) =>
      c.positionals.length
        ? (await import("./mcpClientCommand.js")).mcpClientCommand(c.workspace, c.positionals, c.values, c.io)
        : (await customTools(c), runMcp(c.workspace, c.values, c.io, VERSION));
  },
  trust: async () => {
    const { trustCommand } = await import("./trustCommand.js");
    return (c) => trustCommand("trust", c.positionals, c.values, c.workspace.root, c.workspace.env, c.io);
  },
  untrust: async () => {
    const { trustCommand } = await import("./trustCommand.js");
    return (c) => trustCommand("untrust", c.positionals, c.values, c.workspace.root, c.workspace.env, c.io);
  },
  run: async () => {
    const { runCommand } = await import("../../ui/run.js");
    return async (c) =>
      (await askTrustFirst(c)) ??
      withExtensions(c, () => runCommand(c.workspace, c.positionals, c.values, c.io, c.readStdin));
  },
  chat: async () => {
    const { chatCommand } = await import("../../ui/chat.js");
    return async (c) =>
      noPositionals(c) ?? (await askTrustFirst(c)) ?? withExtensions(c, () => chatCommand(c.workspace, c.values, c.io));
  },
  acp: async () => {
    const { runAcp } = await import("../acp/run.js");
    // Standard output belongs to the protocol, as with rt mcp; custom tools load as for rt run.
    return async (c) => noPositionals(c) ?? (await customTools(c), runAcp(c.workspace, c.values, c.io, VERSION));
  },
  models: async () => {
    const { modelsCommand } = await import("./modelsCommand.js");
    return (c) => modelsCommand(c.workspace, c.positionals, c.values, c.io);
  },
  sessions: async () => {
    const { sessionsCommand } = await import("./sessionsCommand.js");
    return (c) => noPositionals(c) ?? sessionsCommand(c.workspace, c.values, c.io);
  },
  rewind: async () => {
    const { rewindCommand } = await import("../../ui/rewindCommand.js");
    return (c) => noPositionals(c) ?? rewindCommand(c.workspace, c.values, c.io);
  },
  agents: async () => {
    const { listAgents } = await import("../../ui/agentList.js");
    return async (c) =>
      noPositionals(c) ?? (await customTools(c), listAgents(c.workspace, c.values.json === true, c.io));
  },
  export: async () => {
    const { exportCommand } = await import("./sessionsCommand.js");
    return (c) => exportCommand(c.workspace, c.positionals, c.values, c.io);
  },
  tool: async () => {
    const { toolCommand } = await import("./extendCommands.js");
    return (c) => toolCommand(c.workspace, c.positionals, c.io);
  },
};

/** An agent command with the extensions: custom tools and the user's MCP servers, closed when it ends. */
async function withExtensions(c: CommandInvocation, run: () => Promise<number>): Promise<number> {
  await customTools(c);
  const { agentMcpClients } = await import("./mcpClientCommand.js");
  const mcp = await agentMcpClients(c.workspace, c.io);
  try {
    return await run();
  } finally {
    await mcp.close();
  }
}

/** Custom tools for the faces that list or call every tool; one-shot commands like `rt open` never read them. */
async function customTools(c: CommandInvocation): Promise<void> {
  // No folder of definitions: nothing to load (and `rt call` stays in the CLI's first file).
  if (!anyToolDir(c.workspace)) return;
  const { withCustomTools } = await import("./extendCommands.js");
  await withCustomTools(c.workspace, c.io);
}

/**
 * The agent commands, on a terminal: a folder whose .rt/config.json holds
 * settings that need trust is asked about first, before anything reads that
 * configuration or talks to a server. 130 when the user interrupted the question.
 */
async function askTrustFirst(c: CommandInvocation): Promise<number | undefined> {
  const { terminalAvailable, terminalQuestionIo, confirmTrust } = await import("../../ui/trustPrompt.js");
  if (terminalAvailable() && (await confirmTrust(c.workspace, terminalQuestionIo())) === "interrupted") return 130;
  return undefined;
}

export async function main(argv: string[], io: Io, readStdin: () => Promise<string | null>): Promise<number> {
  const split = splitCommand(argv);
  const { globals, rest } = split;
  // Plain `rt` on a terminal is `rt chat`: the full-screen UI. Elsewhere it is a usage error.
  const command =
    split.command ??
    (io.tty?.stdout && process.stdin.isTTY && !globals.some((g) => /^(--help|-h|--version|-V)$/.test(g))
      ? "chat"
      : undefined);
  if (globals.includes("--version") || globals.includes("-V")) {
    io.stdout(`rt ${VERSION}\n`);
    return 0;
  }
  const wantsHelp = globals.includes("--help") || globals.includes("-h");
  if (!command && !wantsHelp) {
    io.stderr(`rt: missing command\n${await mainHelp()}\n`);
    return 2;
  }
  if (!command || wantsHelp || command === "help") {
    // rt --help, rt --help CMD, rt help, rt help CMD
    const name = command === "help" ? rest[0] : command;
    const target = name ? await findCommand(name) : undefined;
    if (name && !target) {
      io.stderr(`${await unknownCommand(name)}\n`);
      return 2;
    }
    io.stdout(`${target ? commandHelp(target) : await mainHelp()}\n`);
    return 0;
  }
  const spec = await findCommand(command);
  if (!spec) {
    io.stderr(`${await unknownCommand(command)}\n`);
    return 2;
  }
  let parsed: Parsed;
  try {
    // `rt tool NAME --ARG VALUE`: the options are the tool's own, read from its schema (extendCommands.ts).
    parsed =
      spec.name === "tool" && rest[0] !== "--help" && rest[0] !== "-h"
        ? { ...parse(globals, GLOBAL_OPTIONS), positionals: rest }
        : parse([...globals, ...rest], { ...spec.options, ...GLOBAL_OPTIONS });
  } catch (e) {
    io.stderr(`rt ${spec.name}: ${(e as Error).message}\nUsage: ${spec.synopsis}\n`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout(`${commandHelp(spec)}\n`);
    return 0;
  }
  let workspace: Workspace;
  try {
    workspace = await openWorkspace(parsed.values);
  } catch (e) {
    io.stderr(`rt: ${(e as Error).message}\n`);
    return 2;
  }
  const run = COMMAND_RUNS[spec.name];
  if (run)
    return (await run())({ spec, workspace, positionals: parsed.positionals, values: parsed.values, io, readStdin });
  return runToolCommand(spec, workspace, parsed, io, readStdin);
}

/**
 * Paths on the command line are relative to the current directory when it is
 * inside the workspace root (as with any Unix tool), else to the root; output
 * paths likewise.
 */
export function pathContext(root: string, cwd: string): PathContext & { show: (rel: string) => string } {
  const real = (() => {
    try {
      return fs.realpathSync(cwd);
    } catch {
      return path.resolve(cwd);
    }
  })();
  const inside = real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  const slash = (p: string) => p.split(path.sep).join("/");
  if (!inside) return { path: (p) => p, here: undefined, show: (rel) => rel };
  const here = slash(path.relative(root, real)) || ".";
  return {
    here,
    path(p) {
      if (p === "" || path.isAbsolute(p)) return p;
      const abs = path.resolve(real, p);
      const rel = path.relative(root, abs);
      if (rel === "") return ".";
      if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return abs; // outside: the tool refuses it, naming it
      return slash(rel);
    },
    show(rel) {
      if (here === ".") return rel;
      return slash(path.relative(real, path.join(root, rel))) || ".";
    },
  };
}

/** A usage problem the tool found, in the command line's terms: its flags and argument names, never a JSON schema. */
function usageMessage(spec: CommandSpec, args: Record<string, unknown>, result: ToolResult): string {
  const issues = result.issues as ArgumentIssue[] | undefined;
  if (!Array.isArray(issues) || issues.length === 0)
    return (result.error ?? "invalid arguments").split("\nschema: ")[0];
  const names = spec.argNames ?? {};
  const choices = spec.argChoices ?? {};
  const words = issues.map((i) => {
    const key = String(i.path[0] ?? "");
    const name = names[key] ?? (key ? `--${key.replace(/_/g, "-")}` : "the arguments");
    const given = key in args ? args[key] : undefined;
    const not = given !== undefined && typeof given !== "object" ? `, not ${JSON.stringify(given)}` : "";
    switch (i.code) {
      case "too_small": {
        if (typeof given === "string") return `${name} must not be empty`;
        if (spec.argAbove?.[key] !== undefined) return `${name} must be greater than ${i.minimum}${not}`;
        const max = spec.argMaximum?.[key];
        return `${name} must be at least ${i.minimum}${max !== undefined ? ` (and at most ${max})` : ""}${not}`;
      }
      case "too_big":
        return `${name} must be at most ${i.maximum}${not}`;
      case "invalid_value":
        if (choices[key]) return `${key} must be ${orList(choices[key])}${not}`;
        return `${name} must be one of ${(i.values ?? []).map((v) => JSON.stringify(v)).join(", ")}${not}`;
      case "invalid_type":
        return given === undefined
          ? `missing ${name}`
          : `${name} must be ${i.expected === "number" ? "a number" : `a ${i.expected}`}${not}`;
      case "unrecognized_keys":
        return `unexpected ${orList((i.keys ?? []).map((k) => names[k] ?? k))}`;
      default: {
        // A tool's own words (alias conflicts...): its argument names in the command line's.
        let msg = i.message;
        for (const [arg, shown] of Object.entries(names)) msg = msg.replace(new RegExp(`\\b${arg}\\b`, "g"), shown);
        return key ? `${name}: ${msg}` : msg;
      }
    }
  });
  return words.join("; ");
}

async function runToolCommand(
  spec: CommandSpec,
  workspace: Workspace,
  parsed: Parsed,
  io: Io,
  readStdin: () => Promise<string | null>,
): Promise<number> {
  const env = io.env ?? process.env;
  const where = pathContext(workspace.root, io.cwd ?? process.cwd());
  let call;
  try {
    if (spec.stdin) {
      const text = await readStdin();
      if (text === null)
        throw new UsageError(
          `${spec.name} reads the new lines from standard input: pipe them or use a here-doc (<<'EOF' ... EOF)`,
        );
      parsed.values.stdin = text;
    }
    call = spec.toCall!(parsed.positionals, parsed.values, where);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`rt ${spec.name}: ${e.message}\nUsage: ${spec.synopsis}\n`);
    return 2;
  }
  const { callTool } = await import("../../tools/policy.js");
  const { COLOR, PLAIN, ProgressLine, wantsColor } = await import("./terminal.js");

  // On a terminal: rt bash's output as it comes, and a progress line for a slow call.
  const streaming = call.tool === "bash" && call.args.background !== true && io.tty?.stdout === true;
  let streamed = false;
  // Only on a terminal: its timer costs a one-shot command more than its work (io.tty asks fstat first; the answer is needed for colour anyway).
  const progress =
    io.tty?.stderr === true
      ? new ProgressLine(io.stderr, `rt ${spec.name}`, progressLabel(spec.name, call.args, workspace))
      : undefined;
  const onProgress = (p: ToolProgress) => {
    if (p.kind === "status") progress?.update(p.message);
    else if (streaming) {
      progress?.stop();
      streamed = true;
      if (io.write) io.write(p.stream, p.data);
      else (p.stream === "stdout" ? io.stdout : io.stderr)(p.data.toString("utf8"));
    }
  };
  let result: ToolResult;
  try {
    result = await callTool(workspace, call.tool, call.args, { onProgress, tools: oneTool(spec.tool) });
  } finally {
    progress?.stop();
  }
  const color = wantsColor(io.tty?.stdout === true, env);
  const rg =
    color && (call.tool === "grep" || call.tool === "grep_file")
      ? (await import("../../tools/shared/ripgrep.js")).rgPath()
      : undefined;
  const screen = { palette: color ? COLOR : PLAIN, show: where.show, ...(rg ? { highlight: rg } : {}) };
  const { displayOutput, displayError } = await import("./display.js");

  if (call.tool === "bash" && typeof result.stdout === "string" && typeof result.stderr === "string") {
    // The command's own streams, and its own exit code (124 on timeout).
    if (!streamed) {
      io.stdout(result.stdout);
      io.stderr(result.stderr);
    }
    if (result.timed_out) {
      io.stderr(`rt bash: ${result.error}\n`);
      return 124;
    }
    return typeof result.exit_code === "number" ? result.exit_code : 1;
  }
  if (!result.success) {
    if (result.error_type === "usage") {
      io.stderr(`rt ${spec.name}: ${usageMessage(spec, call.args, result)}\nUsage: ${spec.synopsis}\n`);
      return 2;
    }
    if (result.output) io.stdout(`${displayOutput(call.tool, call.args, result, screen)}\n`);
    io.stderr(`rt ${spec.name}: ${displayError(call.args, result, screen)}\n`);
    return 1;
  }
  // Like grep and rg: nothing matched is exit 1, with the reason on standard error (standard output stays empty).
  if ((call.tool === "grep" || call.tool === "grep_file") && result.count === 0) {
    io.stderr(`rt ${spec.name}: ${displayError(call.args, { ...result, error: result.output }, screen)}\n`);
    return 1;
  }
  let text = displayOutput(call.tool, call.args, result, screen);
  if (call.tool === "grep" || call.tool === "grep_file") {
    // The note on binary files left out is for the person, not for a pipeline reading the matches.
    const lines = text.split("\n");
    const notes = lines.filter((l) => BINARY_NOTE.test(l));
    if (notes.length) {
      text = lines.filter((l) => !BINARY_NOTE.test(l)).join("\n");
      io.stderr(`${notes.map((n) => `rt ${spec.name}: ${n}`).join("\n")}\n`);
    }
  }
  if (text) io.stdout(text.endsWith("\n") ? text : `${text}\n`);
  // Like a compiler: lsp diagnostics that found errors exit 1.
  return call.tool === "lsp" && typeof result.errors === "number" && result.errors > 0 ? 1 : 0;
}

const BINARY_NOTE = /^(\x1b\[[0-9;]*m)?\(\d+ binary files? with matches not shown/;

/**
 * The lookup for a one-shot command's tool: that tool alone (its module was imported for its command),
 * not the registry, which imports every tool's.
 */
function oneTool(tool: Tool | undefined): ToolLookup | undefined {
  if (!tool) return undefined;
  return { find: (n) => (n === tool.name || tool.aliases.includes(n) ? tool : undefined), names: () => [tool.name] };
}

/** What a slow call is doing, for the progress line (before the tool reports anything itself). */

function progressLabel(command: string, args: Record<string, unknown>, workspace: Workspace): string {
  const formatSize = (n: number) =>
    n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GiB` : `${Math.round(n / (1 << 20))} MiB`;
  if ((command === "open" || command === "scroll" || command === "read") && typeof args.path === "string") {
    const file = args.path.replace(/:(\d+)(-\d+)?$/, "");
    try {
      const size = fs.statSync(path.resolve(workspace.root, file)).size;
      return `reading ${file} (${formatSize(size)}; the first time, rt indexes its lines)`;
    } catch {
      return `reading ${file}`;
    }
  }
  if (command === "grep" || command === "find") return "searching";
  return "working";
}
