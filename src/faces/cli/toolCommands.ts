// A tool's `rt` command, made from the tool's own file: its `cli` (which words and options fill which
// arguments, the synopsis, the summary) and its schema (each option's type, range, choices and help).
// The values are converted from text by the schema's types and then validated by the schema itself,
// through the policy, like any other call: no range or type is written twice.
//
// `rt open` loads open's module alone (toolCommand); rt --help and the tests take every tool's
// (toolCommands, from the registry).
import { shellQuote } from "../../base/text.js";
import { CLI_COMMANDS, TOOL_MODULES, toolOf } from "../../tools/toolModules.js";
import type { CliPositional, CliShape, Tool } from "../../tools/types.js";
import { UsageError, type CommandSpec, type OptionSpec } from "./faceCommands.js";

/** An argument as the tool's schema describes it (in the terms of JSON Schema). */
type Prop = {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Prop[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  description?: string;
};

type CliTool = Tool & { cli: CliShape };

/** The command's name: the one its `cli` gives, else the tool's with "-" for "_". */
export function commandName(tool: CliTool): string {
  return tool.cli.command ?? tool.name.replace(/_/g, "-");
}

/**
 * The command `rt NAME` when it is a built-in tool's, loading that tool's module only (the tool named
 * NAME with "_" for "-", or the one CLI_COMMANDS names); undefined when no tool has that command.
 */
export async function toolCommand(name: string): Promise<CommandSpec | undefined> {
  const toolName = Object.hasOwn(CLI_COMMANDS, name) ? CLI_COMMANDS[name] : name.replace(/-/g, "_");
  if (!Object.hasOwn(TOOL_MODULES, toolName)) return undefined;
  const tool = toolOf(toolName, await TOOL_MODULES[toolName as keyof typeof TOOL_MODULES]());
  if (!tool.cli) return undefined;
  if (commandName(tool as CliTool) !== name) {
    if (Object.hasOwn(CLI_COMMANDS, name))
      throw new Error(
        `src/tools/toolModules.ts: CLI_COMMANDS sends rt ${name} to ${toolName}, whose command is rt ${commandName(
          tool as CliTool,
        )}`,
      );
    return undefined;
  }
  return commandOf(tool as CliTool);
}

/** Every built-in tool's command, in the order of the tools (this loads every tool's module). */
export async function toolCommands(): Promise<CommandSpec[]> {
  const { TOOLS } = await import("../../tools/registry.js");
  const specs: CommandSpec[] = [];
  for (const tool of TOOLS) {
    if (!tool.cli) continue;
    const name = commandName(tool as CliTool);
    // Each command must be found from its name alone, without loading other tools (toolCommand).
    if (name !== tool.name.replace(/_/g, "-") && CLI_COMMANDS[name] !== tool.name)
      throw new Error(`src/tools/toolModules.ts: rt ${name} (the tool ${tool.name}) needs its line in CLI_COMMANDS`);
    specs.push(commandOf(tool as CliTool));
  }
  for (const [name, toolName] of Object.entries(CLI_COMMANDS))
    if (!specs.some((s) => s.name === name && s.tool?.name === toolName))
      throw new Error(`src/tools/toolModules.ts: CLI_COMMANDS names rt ${name}, which ${toolName} does not define`);
  return specs;
}

/** A zod schema, read through the definition zod keeps for introspection (`_zod.def`), without loading zod. */
type ZodLike = { _zod: { def: Record<string, unknown> }; description?: string };

/**
 * The arguments of a tool's zod schema (an object, perhaps inside withArgAliases' preprocess): type,
 * bounds, choices and description of each. Read from the schema itself, not from its conversion to
 * JSON Schema, which costs `rt open` several milliseconds of its start.
 */
function propsOf(schema: ZodLike): Record<string, Prop> {
  let s = schema;
  while (s._zod.def.type === "pipe") s = s._zod.def.out as ZodLike;
  const shape = (s._zod.def.shape ?? {}) as Record<string, ZodLike>;
  return Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, propOf(field, undefined)]));
}

function propOf(s: ZodLike, outer: string | undefined): Prop {
  const def = s._zod.def;
  const description = outer ?? s.description;
  const described = (p: Prop): Prop => (description !== undefined ? { ...p, description } : p);
  switch (def.type) {
    case "optional":
    case "default":
    case "nullable":
    case "readonly":
      return propOf(def.innerType as ZodLike, description);
    case "string":
    case "boolean":
      return described({ type: def.type });
    case "enum":
      return described({ type: "string", enum: Object.values(def.entries as Record<string, unknown>) });
    case "union":
      return described({ anyOf: (def.options as ZodLike[]).map((o) => propOf(o, undefined)) });
    case "number": {
      const p: Prop = { type: "number" };
      for (const check of (def.checks ?? []) as ZodLike[]) {
        const c = check._zod.def as { check?: string; value?: number; inclusive?: boolean; format?: string };
        // zod's own bounds of a safe integer (±2^53-1) say nothing to a person: left out, as from the JSON schemas.
        const safe = c.value !== undefined && Math.abs(c.value) >= Number.MAX_SAFE_INTEGER;
        if (c.check === "number_format" && c.format?.includes("int")) p.type = "integer";
        else if (c.check === "greater_than" && !safe) {
          if (c.inclusive) p.minimum = c.value;
          else p.exclusiveMinimum = c.value;
        } else if (c.check === "less_than" && c.inclusive && !safe) p.maximum = c.value;
      }
      return described(p);
    }
    default:
      return described({});
  }
}

function typesOf(p: Prop | undefined): string[] {
  if (!p) return [];
  if (p.anyOf) return p.anyOf.flatMap(typesOf);
  if (p.type === undefined) return p.enum ? ["string"] : [];
  return Array.isArray(p.type) ? p.type : [p.type];
}

const isNumber = (p: Prop | undefined) => typesOf(p).some((t) => t === "integer" || t === "number");

/** What a number argument takes, from its schema: "a whole number from 0 to 50", "a number greater than 0". */
function numberWords(p: Prop): string {
  const what = typesOf(p).includes("integer") ? "a whole number" : "a number";
  const { minimum: min, maximum: max, exclusiveMinimum: above } = p;
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (above !== undefined && max !== undefined) return `${what} greater than ${above} and at most ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  if (above !== undefined) return `${what} greater than ${above}`;
  if (max !== undefined) return `${what} of at most ${max}`;
  return what;
}

/** The text a number argument accepts: a whole number where the schema says integer; plain digits only where it also takes text (a line number or a line ID). */
function numberPattern(p: Prop): RegExp {
  const types = typesOf(p);
  if (types.includes("string")) return /^\d+$/;
  return types.includes("integer") ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)$/;
}

/** Whether the argument can take this word (lsp's COLUMN|SYMBOL: a number for the column, else the symbol). */
function takes(p: Prop | undefined, word: string): boolean {
  if (!p || typesOf(p).includes("string")) return true;
  return isNumber(p) && numberPattern(p).test(word);
}

/**
 * A word of the command line as the argument's value, by the schema's type: a number where it takes
 * one; for fixed choices written with "_" (workspace_symbols), the word with "-" too. What the value
 * may be is the schema's to check; only a word that is no number at all is refused here, saying what
 * the argument takes.
 */
function wordValue(p: Prop | undefined, word: string, label: string): unknown {
  if (!p) return word;
  if (p.enum && !p.enum.includes(word) && p.enum.includes(word.replace(/-/g, "_"))) return word.replace(/-/g, "_");
  if (isNumber(p)) {
    if (numberPattern(p).test(word)) return Number(word);
    if (!typesOf(p).includes("string"))
      throw new UsageError(`${label} must be ${numberWords(p)}, not ${JSON.stringify(word)}`);
  }
  return word;
}

/** " (alias: file_path)": aliasNote's ending of a description, which names argument names a model may use, not options. */
const ALIAS_NOTE = / \(alias: [^)]*\)$/;

function helpOf(p: Prop | undefined, key: string): string {
  return p?.description?.replace(ALIAS_NOTE, "") ?? key.replace(/_/g, " ");
}

/** Refuses a command line with fewer words than `names`, naming the ones missing. */
function need(pos: string[], names: string[]): void {
  if (pos.length >= names.length) return;
  const missing = names.slice(pos.length);
  const list =
    missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
  throw new UsageError(`missing ${list}`);
}

const keysOf = (p: CliPositional): readonly string[] => (typeof p.key === "string" ? [p.key] : p.key);

/** The tool's command: options, synopsis and the tool call, from its `cli` and its schema. */
export function commandOf(tool: CliTool): CommandSpec {
  const cli = tool.cli;
  const name = commandName(tool);
  const props = propsOf(tool.schema as unknown as ZodLike);
  const prop = (key: string): Prop => {
    const p = props[key];
    if (!p) throw new Error(`the cli of ${tool.name} names ${key}, an argument its schema does not have`);
    return p;
  };

  const options: Record<string, OptionSpec> = {};
  const argNames: Record<string, string> = {};
  const argChoices: Record<string, string[]> = {};
  const argMaximum: Record<string, number> = {};
  for (const [key, o] of Object.entries(cli.options ?? {})) {
    const p = prop(key);
    if (o.values) {
      for (const [flag, v] of Object.entries(o.values))
        options[flag] = { type: "boolean", ...(v.short ? { short: v.short } : {}), help: v.help };
      continue;
    }
    const flag = o.flag ?? key.replace(/_/g, "-");
    const boolean = typesOf(p).length === 1 && typesOf(p)[0] === "boolean";
    options[flag] = {
      type: boolean ? "boolean" : "string",
      ...(o.short ? { short: o.short } : {}),
      ...(isNumber(p) ? { accepts: numberWords(p) } : {}),
      help: o.help ?? helpOf(p, key),
    };
    argNames[key] = `--${flag}`;
  }
  for (const [flag, f] of Object.entries(cli.flags ?? {})) options[flag] = { type: "boolean", help: f.help };

  // How messages name a positional: as the synopsis does; a word of fixed choices ("+|-") as "the direction (+ or -)".
  const label = (p: CliPositional): string => {
    const words = p.name.split("|");
    const key = keysOf(p)[0];
    if (keysOf(p).length === 1 && words.length > 1 && props[key]?.enum) {
      argChoices[key] = words;
      return `the ${key} (${words.slice(0, -1).join(", ")} or ${words[words.length - 1]})`;
    }
    return p.name;
  };
  for (const form of [cli.positionals, ...(cli.forms ?? []).map((f) => f.positionals)])
    for (const p of form) {
      const keys = keysOf(p);
      for (const key of keys) {
        prop(key);
        argNames[key] ??= keys.length === 1 ? label(p) : key.toUpperCase();
      }
    }
  if (cli.stdin) argNames[cli.stdin] = "standard input";
  const argAbove: Record<string, number> = {};
  for (const [key, p] of Object.entries(props)) {
    if (p.maximum !== undefined) argMaximum[key] = p.maximum;
    if (p.exclusiveMinimum !== undefined) argAbove[key] = p.exclusiveMinimum;
  }

  /** The positionals this command line uses: the first form whose `when` holds, else the usual ones. */
  const formOf = (pos: string[], opts: Record<string, unknown>): readonly CliPositional[] => {
    for (const form of cli.forms ?? []) {
      const holds = Object.entries(form.when).every(([key, want]) => {
        const option = cli.options?.[key];
        let given: unknown;
        if (option) given = opts[option.flag ?? key.replace(/_/g, "-")];
        else {
          const i = form.positionals.findIndex((p) => keysOf(p).includes(key));
          given = i >= 0 && pos[i] !== undefined ? wordValue(props[key], pos[i], "") : undefined;
        }
        return want === true ? given !== undefined : given === want;
      });
      if (holds) return form.positionals;
    }
    return cli.positionals;
  };

  const toCall: CommandSpec["toCall"] = (pos, opts, where) => {
    const args: Record<string, unknown> = { ...cli.fixed };
    const setPath = (key: string, kind: true | "here", word: string | undefined) => {
      const p = word === undefined ? where.here : where.path(word);
      if (kind === "here" ? p !== undefined && p !== "." : p !== undefined) args[key] = p;
    };
    for (const [key, o] of Object.entries(cli.options ?? {})) {
      if (o.values) {
        const given = Object.entries(o.values).filter(([flag]) => opts[flag] === true);
        if (given.length > 1)
          throw new UsageError(
            `${given.map(([flag, v]) => (v.short ? `-${v.short}` : `--${flag}`)).join(" and ")} cannot be combined`,
          );
        if (given.length === 1) args[key] = given[0][1].value;
        continue;
      }
      const flag = o.flag ?? key.replace(/_/g, "-");
      const v = opts[flag];
      if (o.path && (typeof v === "string" || (v === undefined && o.path === "here")))
        setPath(key, o.path, v as string | undefined);
      else if (typeof v === "string") args[key] = wordValue(props[key], v, `--${flag}`);
      else if (v !== undefined) args[key] = v;
    }
    const flags: Record<string, boolean> = {};
    for (const flag of Object.keys(cli.flags ?? {})) flags[flag] = opts[flag] === true;

    const form = formOf(pos, opts);
    need(
      pos,
      form.filter((p) => !p.optional).map((p) => (keysOf(p).length === 1 ? argNames[keysOf(p)[0]] : p.name)),
    );
    if (!form.some((p) => p.rest) && pos.length > form.length)
      throw new UsageError(`unexpected argument "${pos[form.length]}"`);
    form.forEach((p, i) => {
      const keys = keysOf(p);
      if (p.rest) {
        // One word is a command line as it is; several (after --) are words, quoted back into one.
        const words = pos.slice(i);
        if (words.length) args[keys[0]] = words.length === 1 ? words[0] : words.map(shellQuote).join(" ");
        return;
      }
      const word = pos[i];
      if (p.path) {
        if (word !== undefined || p.path === "here") setPath(keys[0], p.path, word);
        return;
      }
      if (word === undefined) return;
      const key = keys.find((k) => takes(props[k], word)) ?? keys[0];
      args[key] = wordValue(props[key], word, argNames[key]);
    });
    if (cli.stdin) args[cli.stdin] = typeof opts.stdin === "string" ? opts.stdin : "";
    const problem = cli.refine?.(args, flags, pos);
    if (problem) throw new UsageError(problem);
    return { tool: tool.name, args };
  };

  return {
    name,
    synopsis: cli.synopsis ?? synopsisOf(name, cli, options, props),
    summary: cli.summary,
    options,
    ...(cli.stdin ? { stdin: true } : {}),
    toCall,
    argNames,
    argChoices,
    argMaximum,
    argAbove,
    tool,
  };
}

/** `rt NAME WORD [WORD] [-s] [--option N] <<'EOF'`, when the tool's file writes no synopsis of its own. */
function synopsisOf(name: string, cli: CliShape, options: Record<string, OptionSpec>, props: Record<string, Prop>) {
  const words = [`rt ${name}`];
  for (const p of cli.positionals) words.push(p.rest ? `${p.name}...` : p.optional ? `[${p.name}]` : p.name);
  for (const [key, o] of Object.entries(cli.options ?? {})) {
    if (o.values) {
      words.push(
        `[${Object.keys(o.values)
          .map((f) => (o.values![f].short ? `-${o.values![f].short}` : `--${f}`))
          .join("|")}]`,
      );
      continue;
    }
    const flag = o.flag ?? key.replace(/_/g, "-");
    const spec = options[flag];
    const value = spec.type === "boolean" ? "" : isNumber(props[key]) ? " N" : " VALUE";
    words.push(`[${spec.short ? `-${spec.short}` : `--${flag}`}${value}]`);
  }
  for (const flag of Object.keys(cli.flags ?? {})) words.push(`[--${flag}]`);
  if (cli.stdin) words.push("<<'EOF'");
  return words.join(" ");
}
