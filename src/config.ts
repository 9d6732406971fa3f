// rt's configuration: `~/.config/rt/config.json` (the user's) merged with
// `<root>/.rt/config.json` (the project's, which wins). Both are optional.
// Validated with zod; keys rt does not know are kept, so later parts (the
// agent's providers...) can read their own sections from the same object.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";

const common = {
  /** Shown when connections are listed. */
  description: z.string().optional(),
  /** Statement timeout for this connection, in milliseconds (default 30 000). */
  timeout_ms: z.number().int().positive().max(3_600_000).optional(),
};
const port = z.union([z.number().int().min(1).max(65535), z.string().regex(/^\d+$/)]);

export const SqliteDatabaseSchema = z.looseObject({
  type: z.literal("sqlite"),
  /** Path of an existing database file; relative paths are resolved against the workspace root. */
  path: z.string().min(1),
  ...common,
});

export const PostgresDatabaseSchema = z.looseObject({
  type: z.enum(["postgres", "postgresql"]),
  /** postgres://user:password@host:port/database?sslmode=... (the other fields override its parts). */
  url: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: port.optional(),
  database: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
  /** Name of an environment variable holding the password (keeps it out of the file). */
  password_env: z.string().min(1).optional(),
  ssl: z.union([z.boolean(), z.enum(["disable", "require", "no-verify"])]).optional(),
  ...common,
});

export const OracleDatabaseSchema = z.looseObject({
  type: z.literal("oracle"),
  /** Easy Connect string (host:port/service) or a TNS alias. */
  dsn: z.string().min(1),
  user: z.string().min(1),
  password: z.string().optional(),
  password_env: z.string().min(1).optional(),
  ...common,
});

export const VerticaDatabaseSchema = z.looseObject({
  type: z.literal("vertica"),
  host: z.string().min(1),
  port: port.optional(),
  database: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
  password_env: z.string().min(1).optional(),
  ...common,
});

export const DatabaseConfigSchema = z.discriminatedUnion("type", [
  SqliteDatabaseSchema,
  PostgresDatabaseSchema,
  OracleDatabaseSchema,
  VerticaDatabaseSchema,
]);

/**
 * A model provider (`"providers": { "<name>": {...} }`). The built-in names (ollama,
 * openai, anthropic, openai-compatible, openrouter, lmstudio, vllm, llamacpp) know
 * their protocol and address; any other name is an OpenAI-compatible server unless
 * `type` says otherwise, and needs `base_url`.
 */
export const ProviderConfigSchema = z.looseObject({
  type: z.enum(["ollama", "openai", "anthropic", "openai-compatible"]).optional(),
  /** "http://host:port/v1" (Ollama: its own address, or host:port as in OLLAMA_HOST). */
  base_url: z.string().min(1).optional(),
  /** Prefer `api_key_env` (keeps the key out of the file). */
  api_key: z.string().optional(),
  /** Name of an environment variable holding the key. */
  api_key_env: z.string().min(1).optional(),
  /** Extra HTTP headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
  /** Context window per model name, for servers that do not report it. */
  context_windows: z.record(z.string(), z.number().int().positive()).optional(),
  /** Anthropic: token budget for extended thinking (absent: thinking off). */
  thinking_budget_tokens: z.number().int().min(1024).optional(),
  /** Ollama: `think` sent with every request (thinking models): a boolean or a level; absent: the model's default. */
  think: z.union([z.boolean(), z.enum(["low", "medium", "high", "max"])]).optional(),
  /** Retries of a call that failed before its answer started (network, 429, 5xx). */
  max_retries: z.number().int().min(0).max(10).optional(),
  /** Milliseconds to wait for the first part of an answer, and between two parts. */
  first_part_timeout_ms: z.number().int().positive().optional(),
  idle_timeout_ms: z.number().int().positive().optional(),
});

export const RtConfigSchema = z.looseObject({
  /** The agent's model, "provider/model" ("ollama/qwen2.5-coder:7b", "anthropic/claude-sonnet-4-5"); --model overrides it. */
  model: z.string().min(1).optional(),
  /** Model providers by name: addresses, keys, timeouts (see ProviderConfigSchema). */
  providers: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "provider names use letters, digits, _ . -"), ProviderConfigSchema).optional(),
  /** Named database connections for sql_query, sql_tables and sql_describe. */
  databases: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "connection names use letters, digits, _ . -"), DatabaseConfigSchema).optional(),
  /** The connection used when a call names none and several are configured. */
  default_database: z.string().optional(),
});

export type DatabaseConfig = z.infer<typeof DatabaseConfigSchema>;
export type RtConfig = z.infer<typeof RtConfigSchema>;
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** A configuration file that cannot be read or does not validate. */
export class ConfigError extends Error {
  constructor(message: string, readonly file?: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Sections whose entries are replaced whole by a later file, not merged key by key. */
const REPLACED_ENTRIES = new Set(["databases"]);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `over` on top of `base`: objects merge key by key, anything else is replaced.
 * In the sections named in REPLACED_ENTRIES (`databases`), an entry of `over`
 * replaces the entry of the same name whole (a project's `main` database is not
 * a mix of the user's and the project's fields).
 */
export function mergeConfig(base: Record<string, unknown>, over: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (depth === 0 && REPLACED_ENTRIES.has(k) && isPlainObject(b) && isPlainObject(v)) out[k] = { ...b, ...v };
    else if (isPlainObject(b) && isPlainObject(v)) out[k] = mergeConfig(b, v, depth + 1);
    else out[k] = v;
  }
  return out;
}

export interface ConfigFiles {
  user: string;
  project: string;
}

/** Where the user's and the project's configuration files are. */
export function configFiles(root: string, env: NodeJS.ProcessEnv = process.env): ConfigFiles {
  const home = env.HOME || os.homedir();
  const base = env.XDG_CONFIG_HOME || path.join(home, ".config");
  return { user: path.join(base, "rt", "config.json"), project: path.join(root, ".rt", "config.json") };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`)
    .join("; ");
}

function readOne(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") return {};
    throw new ConfigError(`${file}: cannot be read (${err.code ?? err.message})`, file);
  }
  if (text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message}); fix or remove the file`, file);
  }
  if (!isPlainObject(data)) throw new ConfigError(`${file}: must hold a JSON object ({ ... })`, file);
  const parsed = RtConfigSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(`${file}: ${describeIssues(parsed.error)}`, file);
  return data;
}

export interface LoadedConfig {
  config: RtConfig;
  files: ConfigFiles;
  /** For each configured database, the file it comes from. */
  databaseOrigins: Record<string, string>;
}

/** Everything `loadConfig` returns, plus where each database came from. */
export function loadConfigDetailed(workspace: { root: string; env: NodeJS.ProcessEnv }): LoadedConfig {
  const files = configFiles(workspace.root, workspace.env);
  const user = readOne(files.user);
  const project = readOne(files.project);
  const merged = RtConfigSchema.safeParse(mergeConfig(user, project));
  if (!merged.success) throw new ConfigError(`${files.user} + ${files.project}: ${describeIssues(merged.error)}`);
  const databaseOrigins: Record<string, string> = {};
  for (const name of Object.keys((user.databases as object | undefined) ?? {})) databaseOrigins[name] = files.user;
  for (const name of Object.keys((project.databases as object | undefined) ?? {})) databaseOrigins[name] = files.project;
  return { config: merged.data, files, databaseOrigins };
}

/** The user's configuration merged with the project's (project wins), validated. Throws ConfigError naming the file at fault. */
export function loadConfig(workspace: { root: string; env: NodeJS.ProcessEnv }): RtConfig {
  return loadConfigDetailed(workspace).config;
}
