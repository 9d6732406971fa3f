// `rt` on the command line: parse, call the tool through the policy, print
// the result for a person. Exit codes: 0 success, 1 tool error, 2 usage error.
import path from "node:path";
import { parseArgs } from "node:util";
import { COMMANDS, GLOBAL_OPTIONS, UsageError, type CommandSpec, type OptionSpec } from "./commands.js";
import type { Workspace } from "../../workspace/workspace.js";

const VERSION = "0.1.0";

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

function optionLine(name: string, o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? " VALUE" : ""}`;
  return `  ${flag.padEnd(28)} ${o.help}`;
}

export function mainHelp(): string {
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

function parse(argv: string[], options: Record<string, OptionSpec>): Parsed {
  const spec: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [n, o] of Object.entries(options)) spec[n] = o.short ? { type: o.type, short: o.short } : { type: o.type };
  let res;
  try {
    res = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0].replace(/^TypeError \[\w+\]: /, ""));
  }
  const values: Parsed["values"] = { ...(res.values as Record<string, string | boolean>) };
  for (const [n, o] of Object.entries(options)) {
    if (o.integer && typeof values[n] === "string") {
      const v = values[n] as string;
      if (!/^\d+$/.test(v)) throw new UsageError(`--${n} must be a whole number, not "${v}"`);
      if (o.min !== undefined && Number(v) < o.min) throw new UsageError(`--${n} must be at least ${o.min}, not ${v}`);
      values[n] = Number(v);
    }
  }
  return { values, positionals: res.positionals };
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

export async function main(argv: string[], io: Io, readStdin: () => Promise<string | null>): Promise<number> {
  const { globals, command, rest } = splitCommand(argv);
  if (globals.includes("--version") || globals.includes("-V")) {
    io.stdout(`rt ${VERSION}\n`);
    return 0;
  }
  const wantsHelp = globals.includes("--help") || globals.includes("-h");
  if (!command && !wantsHelp) {
    io.stderr(`rt: missing command\n${mainHelp()}\n`);
    return 2;
  }
  if (!command || wantsHelp || command === "help") {
    // rt --help, rt --help CMD, rt help, rt help CMD
    const name = command === "help" ? rest[0] : command;
    const target = name ? COMMANDS.find((c) => c.name === name) : undefined;
    if (name && !target) {
      io.stderr(`rt: unknown command "${name}"\n${mainHelp()}\n`);
      return 2;
    }
    io.stdout(`${target ? commandHelp(target) : mainHelp()}\n`);
    return 0;
  }
  const spec = COMMANDS.find((c) => c.name === command);
  if (!spec) {
    io.stderr(`rt: unknown command "${command}"\n${mainHelp()}\n`);
    return 2;
  }
  let parsed: Parsed;
  try {
    parsed = parse([...globals, ...rest], { ...spec.options, ...GLOBAL_OPTIONS });
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
  if (spec.name === "call") {
    const { runCall } = await import("../json/call.js");
    return runCall(workspace, parsed.positionals, parsed.values, io, readStdin);
  }
  if (spec.name === "tools") {
    const { listTools } = await import("./toolsList.js");
    io.stdout(listTools(parsed.values.json === true));
    return 0;
  }
  if (spec.name === "mcp") {
    if (parsed.positionals.length) {
      io.stderr(`rt mcp: unexpected argument "${parsed.positionals[0]}"\nUsage: ${spec.synopsis}\n`);
      return 2;
    }
    const { runMcp } = await import("../mcp/run.js");
    return runMcp(workspace, parsed.values, io, VERSION);
  }
  if (spec.name === "trust" || spec.name === "untrust") {
    const { trustCommand } = await import("./trustCommand.js");
    return trustCommand(spec.name, parsed.positionals, parsed.values, workspace.root, workspace.env, io);
  }
  // The agent faces (src/ui/), loaded only when used. On a terminal, a folder whose
  // .rt/config.json holds settings that need trust is asked about first, before
  // anything reads that configuration or talks to a server.
  if (spec.name === "run" || (spec.name === "chat" && parsed.positionals.length === 0)) {
    const { terminalAvailable, terminalQuestionIo, confirmTrust } = await import("../../ui/trustPrompt.js");
    if (terminalAvailable() && (await confirmTrust(workspace, terminalQuestionIo())) === "interrupted") return 130;
  }
  if (spec.name === "run") {
    const { runCommand } = await import("../../ui/run.js");
    return runCommand(workspace, parsed.positionals, parsed.values, io, readStdin);
  }
  if (spec.name === "chat" || spec.name === "sessions" || spec.name === "export") {
    if (spec.name !== "export" && parsed.positionals.length) {
      io.stderr(`rt ${spec.name}: unexpected argument "${parsed.positionals[0]}"\nUsage: ${spec.synopsis}\n`);
      return 2;
    }
    if (spec.name === "chat") {
      const { chatCommand } = await import("../../ui/chat.js");
      return chatCommand(workspace, parsed.values, io);
    }
    const { sessionsCommand, exportCommand } = await import("../../ui/sessionsCommand.js");
    return spec.name === "sessions" ? sessionsCommand(workspace, parsed.values, io) : exportCommand(workspace, parsed.positionals, parsed.values, io);
  }
  let call;
  try {
    if (spec.stdin) {
      const text = await readStdin();
      if (text === null) throw new UsageError(`${spec.name} reads the new lines from standard input: pipe them or use a here-doc (<<'EOF' ... EOF)`);
      parsed.values.stdin = text;
    }
    call = spec.toCall!(parsed.positionals, parsed.values);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`rt ${spec.name}: ${e.message}\nUsage: ${spec.synopsis}\n`);
    return 2;
  }
  const { callTool } = await import("../../tools/policy.js");
  const result = await callTool(workspace, call.tool, call.args);
  const rendered = spec.render?.(result, io);
  if (rendered !== undefined) return rendered;
  if (!result.success) {
    io.stderr(`rt ${spec.name}: ${result.error}\n`);
    if (result.error_type === "usage") {
      io.stderr(`Usage: ${spec.synopsis}\n`);
      return 2;
    }
    return 1;
  }
  if (result.output) io.stdout(result.output.endsWith("\n") ? result.output : `${result.output}\n`);
  return 0;
}
