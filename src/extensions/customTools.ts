import * as z from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { registerTools, unregisterTools, findTool } from "../tools/registry.js";
import { ToolError, type Tool, type ToolResult } from "../tools/types.js";
import { toolDirs } from "./toolDirs.js";
import { readDefinitionDir } from "./definitionFiles.js";
import type { CustomToolDefinition } from "./definition.js";

export { argEnvName, type CustomToolDefinition, type ToolTest } from "./definition.js";
export { toolDirs } from "./toolDirs.js";
import { BASH_MAX_TIMEOUT_S, CUSTOM_TOOL_DEFAULT_TIMEOUT_S } from "../base/limits.js";

export const TOOL_FILE_EXTENSIONS: readonly string[] = [".yaml", ".yml", ".json"];
const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** One thing wrong with a definition: the file, the field (dotted; "" for the file as a whole) and what is wrong. */
export interface DefinitionProblem {
  file: string;
  field: string;
  message: string;
}

const TestSchema = z
  .object({
    args: z.record(z.string(), z.unknown()).default({}),
    exit_code: z.number().int().min(0).max(255).default(0),
    output_contains: z.string().optional(),
  })
  .strict();

const DefinitionSchema = z
  .object({
    name: z
      .string()
      .regex(NAME_PATTERN, "must be lower case letters, digits and _, starting with a letter (at most 64)"),
    description: z.string().min(1).max(2000),
    parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    command: z.array(z.string().min(1)).min(1, 'must name a program: ["program", "arg", ...]'),
    read_only: z.boolean({ error: "must be true or false: say whether the tool never changes anything" }),
    timeout: z.number().positive().max(BASH_MAX_TIMEOUT_S).default(CUSTOM_TOOL_DEFAULT_TIMEOUT_S),
    tests: z.array(TestSchema).default([]),
  })
  .strict();

type AjvInstance = {
  compile(schema: unknown): AjvValidate;
  validateSchema(schema: unknown): boolean;
  errors?: AjvError[] | null;
  errorsText(errors?: AjvError[] | null): string;
};
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

let ajvLoading: Promise<AjvInstance> | undefined;
/** One Ajv for the process, loaded the first time a definition is read. */
export function loadAjv(): Promise<AjvInstance> {
  ajvLoading ??= Promise.all([import("ajv"), import("ajv-formats")]).then(([m, f]) => {
    const Ajv = ((m as { default?: unknown }).default ?? m) as new (opts: Record<string, unknown>) => AjvInstance;
    const Ctor = ((Ajv as unknown as { default?: unknown }).default ?? Ajv) as new (
      opts: Record<string, unknown>,
    ) => AjvInstance;
    const ajv = new Ctor({ allErrors: true, strict: false, useDefaults: true });
    // The JSON Schema formats (uri, date-time, email...) that MCP servers' and custom tools' schemas use:
    // checked, where Ajv alone would print "unknown format ... ignored" for each on standard error.
    const addFormats = ((f as { default?: unknown }).default ?? f) as (ajv: AjvInstance) => void;
    addFormats(ajv);
    return ajv;
  });
  return ajvLoading;
}

/** The data of a YAML or JSON file (YAML 1.2 is a superset of JSON; .json files are parsed as JSON for exact errors). */
async function parseData(file: string, text: string): Promise<unknown> {
  if (file.endsWith(".json")) return JSON.parse(text);
  const { parse } = await import("yaml");
  // No custom tags, no anchors expanded without limit: plain data only.
  return parse(text, { schema: "core", maxAliasCount: 100 });
}

export type DefinitionCheck =
  | { ok: true; definition: CustomToolDefinition; validate: AjvValidate }
  | { ok: false; problems: DefinitionProblem[] };

/** Parses and checks one definition file's text: the fields, the parameters as a JSON Schema, and each test's arguments against it. */
export async function checkDefinition(
  file: string,
  text: string,
  origin: CustomToolDefinition["origin"],
): Promise<DefinitionCheck> {
  let data: unknown;
  try {
    data = await parseData(file, text);
  } catch (e) {
    return {
      ok: false,
      problems: [
        {
          file,
          field: "",
          message: `not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${(e as Error).message.split("\n")[0]}`,
        },
      ],
    };
  }
  const parsed = DefinitionSchema.safeParse(data);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => ({
        file,
        field: i.path.join(".") || "",
        message:
          i.code === "unrecognized_keys"
            ? `unknown field(s) ${(i as { keys?: string[] }).keys?.join(", ")}: valid fields are name, description, parameters, command, read_only, timeout, tests`
            : i.message,
      })),
    };
  }
  const def = parsed.data;
  const problems: DefinitionProblem[] = [];
  if (def.parameters.type !== "object")
    problems.push({ file, field: "parameters.type", message: 'must be "object": a tool takes named arguments' });
  const ajv = await loadAjv();
  let validate: AjvValidate | undefined;
  if (!ajv.validateSchema(def.parameters)) {
    problems.push({ file, field: "parameters", message: `not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}` });
  } else {
    try {
      validate = ajv.compile(def.parameters);
    } catch (e) {
      problems.push({ file, field: "parameters", message: `not a usable JSON Schema: ${(e as Error).message}` });
    }
  }
  if (validate) {
    def.tests.forEach((t, i) => {
      if (!validate!(structuredClone(t.args)))
        problems.push({
          file,
          field: `tests.${i}.args`,
          message: `do not match parameters: ${describeAjvErrors(validate!.errors)}`,
        });
    });
  }
  if (problems.length || !validate) return { ok: false, problems };
  return { ok: true, definition: { ...def, file, origin }, validate };
}

export function describeAjvErrors(errors: AjvError[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "(arguments)";
      const extra =
        e.params && "allowedValues" in e.params
          ? ` (${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")})`
          : e.params && "additionalProperty" in e.params
            ? ` (${String(e.params.additionalProperty)})`
            : "";
      return `${where}: ${e.message ?? "invalid"}${extra}`;
    })
    .join("; ");
}

/** The zod stand-in the policy validates with: Ajv against the definition's own schema, each problem an issue at its argument. */
export function ajvSchema(validate: AjvValidate): z.ZodType {
  return z.any().transform((value, ctx) => {
    const copy = structuredClone(value ?? {});
    if (validate(copy)) return copy;
    for (const e of validate.errors ?? []) {
      const pathParts = e.instancePath ? e.instancePath.slice(1).split("/") : [];
      if (e.params && typeof e.params.missingProperty === "string") pathParts.push(e.params.missingProperty);
      ctx.addIssue({
        code: "custom",
        path: pathParts,
        message: `${e.message ?? "invalid"}${e.params && "allowedValues" in e.params ? `: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` : ""}`,
      });
    }
    return z.NEVER;
  });
}

/** A definition as a registry tool. */
export function customTool(def: CustomToolDefinition, validate: AjvValidate): Tool {
  const schemaForModel = { ...def.parameters };
  delete schemaForModel.$schema;
  let schema: z.ZodType | undefined;
  return {
    name: def.name,
    aliases: [],
    description: def.description,
    get schema() {
      return (schema ??= ajvSchema(validate));
    },
    inputJsonSchema: schemaForModel,
    readOnly: def.read_only,
    destructive: !def.read_only,
    customTool: def,
    async handler(args, ctx): Promise<ToolResult> {
      const { runCustomTool } = await import("./customRun.js");
      return runCustomTool(def, args as Record<string, unknown>, ctx);
    },
  } as Tool & { customTool: CustomToolDefinition };
}

/** The definition behind a registry tool, when it is a custom tool. */
export function definitionOf(tool: Tool | undefined): CustomToolDefinition | undefined {
  return (tool as { customTool?: CustomToolDefinition } | undefined)?.customTool;
}

export interface CustomToolsLoad {
  definitions: CustomToolDefinition[];
  tools: Tool[];
  problems: DefinitionProblem[];
  /** The project's tool files not read because the folder is not trusted. */
  untrustedProjectFiles: string[];
  dirs: { project: string; user: string };
}

/**
 * Whether the project's extension files may be read: the folder is trusted and
 * neither its .rt/config.json nor any of its extension files (.mcp.json,
 * .rt/tools, commands, agents) changed since (config.ts says which did, once).
 */
export async function projectTrusted(ws: Workspace): Promise<boolean> {
  const { projectExtensionsTrusted } = await import("../base/config.js");
  return projectExtensionsTrusted(ws);
}

/** Reads and checks every definition: the user's, then the project's (trusted folders only; a project tool cannot replace a user's). */
export async function loadCustomTools(ws: Workspace): Promise<CustomToolsLoad> {
  const dirs = toolDirs(ws);
  const out: CustomToolsLoad = { definitions: [], tools: [], problems: [], untrustedProjectFiles: [], dirs };
  const seen = new Map<string, string>();
  const take = async (dir: string, origin: "project" | "user") => {
    const read = readDefinitionDir(dir, TOOL_FILE_EXTENSIONS, origin === "project");
    for (const p of read.problems) out.problems.push({ file: p.file, field: "", message: p.message });
    for (const f of read.files) {
      const checked = await checkDefinition(f.file, f.text, origin);
      if (!checked.ok) {
        out.problems.push(...checked.problems);
        continue;
      }
      const def = checked.definition;
      const builtin = findTool(def.name);
      if (builtin && !definitionOf(builtin)) {
        out.problems.push({
          file: f.file,
          field: "name",
          message: `"${def.name}" is the name of a built-in tool; choose another`,
        });
        continue;
      }
      if (seen.has(def.name)) {
        out.problems.push({
          file: f.file,
          field: "name",
          message: `"${def.name}" is already defined by ${seen.get(def.name)}`,
        });
        continue;
      }
      seen.set(def.name, f.file);
      out.definitions.push(def);
      out.tools.push(customTool(def, checked.validate));
    }
  };
  await take(dirs.user, "user");
  if (await projectTrusted(ws)) await take(dirs.project, "project");
  else out.untrustedProjectFiles = readDefinitionDir(dirs.project, TOOL_FILE_EXTENSIONS, true).files.map((f) => f.file);
  return out;
}

const loaded = new Map<string, Promise<CustomToolsLoad>>();
const SOURCE = "custom-tools";

/**
 * Loads the workspace's custom tools into the registry (once per root; a
 * second root replaces the first's). Problems are returned, never thrown.
 */
export function ensureCustomTools(ws: Workspace): Promise<CustomToolsLoad> {
  let p = loaded.get(ws.root);
  if (!p) {
    p = loadCustomTools(ws).then((load) => {
      loaded.clear();
      loaded.set(ws.root, p!);
      unregisterTools(SOURCE);
      const refused = registerTools(load.tools, SOURCE);
      for (const name of refused) {
        const def = load.definitions.find((d) => d.name === name);
        load.problems.push({ file: def?.file ?? "", field: "name", message: `"${name}" is already registered` });
      }
      return load;
    });
    loaded.set(ws.root, p);
  }
  return p;
}

/** Forgets what ensureCustomTools loaded (tests; tool_create after writing a definition). */
export function forgetCustomTools(): void {
  loaded.clear();
  unregisterTools(SOURCE);
}

/** One line per problem: "FILE: FIELD: MESSAGE". */
export function formatProblems(problems: readonly DefinitionProblem[]): string {
  return problems.map((p) => `${p.file}: ${p.field ? `${p.field}: ` : ""}${p.message}`).join("\n");
}

export { ToolError };
