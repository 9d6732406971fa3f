// `rt tool NAME --arg value` (any tool, its options read from its JSON
// schema: the way to call a custom tool from a shell) and `rt tools --check`
// (every custom tool definition checked, problems named by file and field,
// each definition's tests run in the sandbox).
import { callTool } from "../../tools/policy.js";
import { findTool, jsonSchemaOf } from "../../tools/registry.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Io } from "../../ui/io.js";
import { ensureCustomTools, formatProblems, type CustomToolsLoad } from "../../extensions/customTools.js";
import { runDefinitionTests } from "../../extensions/customRun.js";

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };

const TOOL_USAGE =
  "Usage: rt tool NAME [--ARG VALUE ...] [--args JSON] [--json]\n  Calls any tool (custom tools included) with its arguments as options: --path src, --limit 5, --flag / --no-flag, a repeated option for an array, JSON for an object.";

/** Reads `--name value` pairs by the tool's schema: numbers and booleans converted, arrays from repeated options, objects from JSON. */
export function argsFromOptions(
  schema: JsonSchema,
  words: readonly string[],
): { ok: true; args: Record<string, unknown>; json: boolean } | { ok: false; error: string } {
  const props = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  let json = false;
  const known = (key: string) =>
    Object.hasOwn(props, key) ? key : Object.hasOwn(props, key.replace(/-/g, "_")) ? key.replace(/-/g, "_") : undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === "--json") {
      json = true;
      continue;
    }
    if (!w.startsWith("--"))
      return { ok: false, error: `unexpected argument "${w}": give each argument as --NAME VALUE` };
    const [flag, inline] = w.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "args") {
      const text = inline ?? words[++i];
      try {
        const v = JSON.parse(text ?? "");
        if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
        Object.assign(args, v);
      } catch (e) {
        return { ok: false, error: `--args must be a JSON object: ${(e as Error).message}` };
      }
      continue;
    }
    let negated = false;
    let key = known(flag);
    if (!key && flag.startsWith("no-") && known(flag.slice(3))) {
      key = known(flag.slice(3));
      negated = true;
    }
    if (!key) {
      const names = Object.keys(props).map((n) => `--${n}`);
      return {
        ok: false,
        error: `unknown option --${flag}; this tool takes ${names.length ? names.join(", ") : "no arguments"}`,
      };
    }
    const p = props[key] ?? {};
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
    if (type === "boolean") {
      if (inline !== undefined) {
        if (!/^(true|false)$/.test(inline))
          return { ok: false, error: `--${flag} takes no value or true/false, not "${inline}"` };
        args[key] = inline === "true" && !negated;
      } else args[key] = !negated;
      continue;
    }
    if (negated) return { ok: false, error: `--no-${key}: ${key} is not a true/false option` };
    const value = inline ?? words[++i];
    if (value === undefined) return { ok: false, error: `--${flag} needs a value` };
    const convert = (v: string, t: string | undefined): unknown => {
      if (t === "integer" || t === "number") return v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v;
      if (t === "object" || t === "array") {
        try {
          return JSON.parse(v);
        } catch {
          return v;
        }
      }
      return v;
    };
    if (type === "array") {
      const itemType = p.items && !Array.isArray(p.items.type) ? p.items.type : undefined;
      const parsed = value.trim().startsWith("[") ? convert(value, "array") : undefined;
      if (Array.isArray(parsed)) args[key] = parsed;
      else args[key] = [...((args[key] as unknown[] | undefined) ?? []), convert(value, itemType)];
    } else args[key] = convert(value, type);
  }
  return { ok: true, args, json };
}

export async function toolCommand(ws: Workspace, words: readonly string[], io: Io): Promise<number> {
  if (words.length === 0 || words[0] === "--help" || words[0] === "-h") {
    io.stdout(`${TOOL_USAGE}\n`);
    return words.length ? 0 : 2;
  }
  const load = await withCustomTools(ws, io);
  const name = words[0];
  const tool = findTool(name);
  if (!tool) {
    io.stderr(
      `rt tool: unknown tool "${name}"; rt tools lists them${load.problems.some((p) => p.file.includes(name)) ? " (rt tools --check: a definition has problems)" : ""}\n`,
    );
    return 2;
  }
  if (words[1] === "--help" || words[1] === "-h") {
    io.stdout(
      `${tool.name}: ${tool.description}\n\narguments (JSON Schema): ${JSON.stringify(jsonSchemaOf(tool), null, 2)}\n`,
    );
    return 0;
  }
  const parsed = argsFromOptions(jsonSchemaOf(tool) as JsonSchema, words.slice(1));
  if (!parsed.ok) {
    io.stderr(`rt tool ${tool.name}: ${parsed.error}\n`);
    return 2;
  }
  const result = await callTool(ws, tool.name, parsed.args);
  if (parsed.json) io.stdout(`${JSON.stringify(result)}\n`);
  else if (result.success)
    io.stdout(result.output.endsWith("\n") || result.output === "" ? result.output : `${result.output}\n`);
  else {
    if (result.output) io.stdout(result.output.endsWith("\n") ? result.output : `${result.output}\n`);
    io.stderr(`rt tool ${tool.name}: ${(result.error ?? "failed").split("\nschema: ")[0]}\n`);
  }
  return result.success ? 0 : result.error_type === "usage" ? 2 : 1;
}

/** `rt tools --check`: 0 when every definition is valid and every test passes, 1 otherwise. */
export async function toolsCheck(ws: Workspace, json: boolean, io: Io): Promise<number> {
  const load: CustomToolsLoad = await ensureCustomTools(ws);
  const results: Array<{
    name: string;
    file: string;
    origin: string;
    tests: Array<{ index: number; passed: boolean; message: string }>;
  }> = [];
  for (const def of load.definitions) {
    const outcomes = await runDefinitionTests(def, ws);
    results.push({
      name: def.name,
      file: def.file,
      origin: def.origin,
      tests: outcomes.map(({ index, passed, message }) => ({ index, passed, message })),
    });
  }
  const failed = results.some((r) => r.tests.some((t) => !t.passed));
  if (json) {
    io.stdout(
      `${JSON.stringify({ ok: !failed && load.problems.length === 0, tools: results, problems: load.problems, untrusted_project_files: load.untrustedProjectFiles, dirs: load.dirs }, null, 2)}\n`,
    );
  } else {
    const lines: string[] = [];
    for (const r of results) {
      const passed = r.tests.filter((t) => t.passed).length;
      lines.push(
        `${r.tests.every((t) => t.passed) ? "ok" : "FAIL"}  ${r.name}  (${r.origin}: ${r.file}; tests ${passed}/${r.tests.length} passed)`,
      );
      for (const t of r.tests) if (!t.passed) lines.push(`      test ${t.index}: ${t.message}`);
    }
    if (load.problems.length)
      lines.push(
        `invalid definitions (skipped):`,
        ...formatProblems(load.problems)
          .split("\n")
          .map((l) => `  ${l}`),
      );
    if (load.untrustedProjectFiles.length)
      lines.push(
        `not loaded: ${load.untrustedProjectFiles.length} project tool file(s) in ${load.dirs.project}: the folder is not trusted (rt trust)`,
      );
    if (!results.length && !load.problems.length && !load.untrustedProjectFiles.length)
      lines.push(`no custom tools (put definitions in ${load.dirs.project} or ${load.dirs.user})`);
    io.stdout(`${lines.join("\n")}\n`);
  }
  return failed || load.problems.length ? 1 : 0;
}

/** Loads the workspace's custom tools before a face that lists or calls every tool; problems go to stderr once, never stop it. */
export async function withCustomTools(ws: Workspace, io: Io): Promise<CustomToolsLoad> {
  const load = await ensureCustomTools(ws);
  if (load.problems.length)
    io.stderr(
      `rt: skipped ${load.problems.length} problem(s) in custom tool definitions (rt tools --check):\n${formatProblems(
        load.problems,
      )
        .split("\n")
        .slice(0, 5)
        .map((l) => `  ${l}`)
        .join("\n")}\n`,
    );
  return load;
}
