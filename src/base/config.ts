// rt's configuration: `~/.config/rt/config.json` (the user's; $XDG_CONFIG_HOME
// honoured) merged with `<root>/.rt/config.json` (the project's). Both are
// optional. Validated with zod; keys rt does not know are kept, so later parts
// (the agent's providers...) can read their own sections from the same object.
//
// The project's file comes with the repository, so it is untrusted input: until
// the user trusts the folder (`rt trust`, see trustStore.ts), only its harmless
// keys apply (configTrust.ts has the table); the others are ignored with one
// line on standard error. Once the folder is trusted, and as long as the file is
// the one the user trusted, the whole project file applies and wins over the
// user's.
import fs from "node:fs";
import crypto from "node:crypto";
import path from "node:path";
import * as z from "zod";
import { readOpenRegularFile } from "./regularFile.js";
import { CONFIG_FILE_MAX_BYTES, CONFIG_MAX_DEPTH, PROVIDER_TIMEOUT_MAX_MS } from "./limits.js";
import {
  canonicalJson,
  changedExtensionsNotice,
  classifyProjectConfig,
  escapeInvisible,
  isPlainObject,
  noticeIgnoredKeys,
  noticeOnce,
  type TrustState,
  type UntrustedKey,
} from "./configTrust.js";
import { trustRecordFor, userConfigDir, TrustStoreError } from "./trustStore.js";
import { diffPins, pinExtensionFiles, type ExtensionPins, type PinChange } from "./extensionPins.js";

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
  /** The protocol: "openai-responses" is OpenAI's Responses API (/v1/responses), for any server that speaks it. */
  type: z.enum(["ollama", "openai", "anthropic", "openai-compatible", "openai-responses"]).optional(),
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
  /**
   * Whether the models take images (read of an image or a PDF's pages): true, false, or the
   * model names that do ("*" ends a prefix). Absent: Ollama's /api/show capabilities, rt's
   * table of hosted models (GPT-4o and later, Claude, Gemini), else no images.
   */
  vision: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
  /**
   * Chat completions: an answer that opens with `<think>` (DeepSeek R1 and its distills behind
   * routers) has that section shown and kept as reasoning, not as answer text. false: as text.
   */
  think_tags: z.boolean().optional(),
  /** Ollama: `think` sent with every request (thinking models): a boolean or a level; absent: the model's default. */
  think: z.union([z.boolean(), z.enum(["low", "medium", "high", "max"])]).optional(),
  /** Retries of a call that failed before its answer started (network, 429, 5xx). */
  max_retries: z.number().int().min(0).max(10).optional(),
  /** Milliseconds to wait for the first part of an answer, and between two parts (at most a day: a Node timer over 2^31 - 1 ms fires after 1 ms). */
  first_part_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
  idle_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
});

/** Language servers: servers of the user's choosing, and the lsp tool's timings. */
export const LspConfigSchema = z.looseObject({
  /** Servers by name: the program, its arguments, the file extensions it serves (".go"); they win over rt's own for those extensions. */
  servers: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.-]+$/, "server names use letters, digits, _ . -"),
      z.looseObject({
        command: z.string().min(1),
        args: z.array(z.string()).optional(),
        extensions: z.array(z.string().regex(/^\.[A-Za-z0-9_.+-]+$/, 'extensions look like ".go"')).min(1),
        /** The LSP language id of its documents (default: the extension without its dot). */
        language_id: z.string().min(1).optional(),
        initialization_options: z.unknown().optional(),
      }),
    )
    .optional(),
  /** After an edit, add the errors it introduced when a server for the file is running (default: on in the agent, off in the CLI). */
  edit_diagnostics: z.boolean().optional(),
  /** How long an edit waits for the file's server to start before it says the server was not ready. */
  edit_diagnostics_start_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
  /** A server unused this long is shut down. */
  idle_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
  /** Each request (and a server's start) fails after this long. */
  request_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
});

const domainList = z
  .array(z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, 'domains look like "example.com" (subdomains included)'))
  .optional();

/** web_fetch and web_search. */
export const WebConfigSchema = z.looseObject({
  /** Only these domains (and their subdomains) are fetched, when set. */
  allowed_domains: domainList,
  /** Never fetched. */
  blocked_domains: domainList,
  /**
   * Let web_fetch reach private and loopback addresses (off: a fetch cannot reach the user's own
   * network). Link-local addresses (169.254.169.254, cloud metadata) stay refused: see allow_hosts.
   */
  allow_private_addresses: z.boolean().optional(),
  /**
   * Hosts, addresses and ranges web_fetch may reach although private: "localhost", "10.0.0.7",
   * "192.168.1.0/24", "fd00::/8". A link-local address only when named exactly (the address or the host).
   */
  allow_hosts: z.array(z.string().trim().min(1)).optional(),
  /** The whole fetch must end within this long (default 30 s). */
  fetch_timeout_ms: z.number().int().positive().max(PROVIDER_TIMEOUT_MAX_MS).optional(),
  /** web_search's backend; without one, web_search is not offered. */
  search: z
    .looseObject({
      backend: z.enum(["brave", "tavily", "exa", "searxng"]),
      /** The environment variable holding the API key (default BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY; SearXNG needs none). */
      api_key_env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .optional(),
      /** The backend's address (required for SearXNG: your instance; the others default to their public API). */
      base_url: z.string().url().optional(),
    })
    .optional(),
});

export const RtConfigSchema = z.looseObject({
  /** The agent's model, "provider/model" ("ollama/qwen2.5-coder:7b", "anthropic/claude-sonnet-4-5"); --model overrides it. */
  model: z.string().min(1).optional(),
  /** Model providers by name: addresses, keys, timeouts (see ProviderConfigSchema). */
  providers: z
    .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "provider names use letters, digits, _ . -"), ProviderConfigSchema)
    .optional(),
  /** Named database connections for sql_query, sql_tables and sql_describe. */
  databases: z
    .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "connection names use letters, digits, _ . -"), DatabaseConfigSchema)
    .optional(),
  /** The connection used when a call names none and several are configured. */
  default_database: z.string().optional(),
  /** Language servers for the lsp tool. */
  lsp: LspConfigSchema.optional(),
  /** web_fetch and web_search. */
  web: WebConfigSchema.optional(),
  /** The full-screen UI (src/ui/tui/settings.ts says what each setting does). */
  tui: z
    .looseObject({
      /** What Enter does with a message typed while a turn runs (Tab does the other). */
      queued_prompts: z.enum(["next_tool_call", "after_turn"]).optional(),
    })
    .optional(),
  /**
   * The environment variables a project's MCP configuration (.mcp.json, a trusted
   * .rt/config.json's mcpServers) may expand with ${VAR}: read from the user's own
   * file only; absent, a project expands none.
   */
  mcp_env_allowlist: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "variable names are letters, digits and _ (not starting with a digit)"),
    )
    .optional(),
});

export type DatabaseConfig = z.infer<typeof DatabaseConfigSchema>;
export type RtConfig = z.infer<typeof RtConfigSchema>;
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** A configuration file that cannot be read or does not validate. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    // The message quotes the file (a key, a value, the text JSON.parse choked on): its control
    // characters are written as escapes, so that printing the error cannot drive the terminal.
    super(escapeInvisible(message));
    this.name = "ConfigError";
  }
}

/**
 * The project's file is not a regular file rt may read (a symlinked `.rt` or
 * `config.json`, a FIFO, a file too large). rt then runs as if the project had
 * no configuration, and says so once on standard error: the repository cannot
 * make rt read through a link, nor refuse to start (the confined writer treats
 * a symlinked `.rt` as absent too). `rt trust` refuses such a folder.
 */
export class ProjectFileRefused extends ConfigError {
  constructor(message: string, file: string) {
    super(message, file);
    this.name = "ProjectFileRefused";
  }
}

/** Sections whose entries are replaced whole by a later file, not merged key by key. */
const REPLACED_ENTRIES = new Set(["databases"]);

/**
 * `over` on top of `base`: objects merge key by key, anything else is replaced.
 * In the sections named in REPLACED_ENTRIES (`databases`), an entry of `over`
 * replaces the entry of the same name whole (a project's `main` database is not
 * a mix of the user's and the project's fields).
 */
export function mergeConfig(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
  depth = 0,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (k === "__proto__") continue; // a JSON key; assigning it would replace the object's prototype
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
  return { user: path.join(userConfigDir(env), "config.json"), project: path.join(root, ".rt", "config.json") };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`).join("; ");
}

/** The text of a configuration file, or undefined when there is none. `project`: no symbolic link is followed, and only a regular file is read. */
function readText(file: string, project: boolean): string | undefined {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  const Refusal = project ? ProjectFileRefused : ConfigError;
  if (project) {
    // The repository controls `.rt` too: a symlinked `.rt` would make rt read a file of the repository's choosing.
    let dir: fs.Stats;
    try {
      dir = fs.lstatSync(path.dirname(file));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR")
        return undefined;
      throw new Refusal(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, file);
    }
    if (dir.isSymbolicLink())
      throw new Refusal(
        `${path.dirname(file)} is a symbolic link; rt does not read a project configuration through one (remove the link)`,
        file,
      );
    if (!dir.isDirectory()) return undefined;
  }
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted as config.json must not block rt; it is refused below.
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | (project ? O_NOFOLLOW : 0));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") return undefined;
    if (err.code === "ELOOP")
      throw new Refusal(
        `${file} is a symbolic link; rt does not follow one for a project configuration (make it a regular file)`,
        file,
      );
    throw new Refusal(`${file}: cannot be read (${err.code ?? err.message})`, file);
  }
  return readOpenRegularFile(fd, CONFIG_FILE_MAX_BYTES, (why) =>
    why === "not-regular"
      ? new Refusal(`${file}: not a regular file`, file)
      : new Refusal(`${file}: larger than ${CONFIG_FILE_MAX_BYTES} bytes; a configuration file is small`, file),
  );
}

/** A configuration file's JSON object ({} when there is none), not yet validated. */
function readObject(file: string, project: boolean): Record<string, unknown> {
  const text = readText(file, project);
  if (text === undefined || text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message}); fix or remove the file`, file);
  }
  if (!isPlainObject(data)) throw new ConfigError(`${file}: must hold a JSON object ({ ... })`, file);
  // Everything after this walks the file recursively (classification, digest, validation): a deep one would overflow the stack.
  if (depthOf(data) > CONFIG_MAX_DEPTH)
    throw new ConfigError(
      `${file}: nested deeper than ${CONFIG_MAX_DEPTH} levels; a configuration file is shallow`,
      file,
    );
  return data;
}

/** How deeply objects and arrays nest in a parsed JSON value (counted without recursion). */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (d > max) max = d;
    if (max > CONFIG_MAX_DEPTH) return max;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

function validate(data: Record<string, unknown>, file: string): Record<string, unknown> {
  const parsed = RtConfigSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(`${file}: ${describeIssues(parsed.error)}`, file);
  return data;
}

/** Where a project stands: its trust, and which of its keys wait for it. */
export interface ProjectTrust {
  /** The workspace root, real. */
  root: string;
  /** trusted: trusted, and the file is the one trusted. changed: trusted, but the file changed since. untrusted: never trusted (or revoked). */
  state: TrustState;
  /** Keys of the project file that do not apply (empty when trusted). */
  ignored: UntrustedKey[];
  /** Keys that apply only once the folder is trusted (applied or not). */
  untrustedKeys: UntrustedKey[];
  /** SHA-256 of the project file's content (parsed, keys sorted; no file counts as {}). */
  digest: string;
  /** When trusted.json could not be read (then nothing is trusted). */
  storeProblem?: string;
  trustedAt?: string;
  /** Why the project's file was not read (ProjectFileRefused): rt runs as if there were none. */
  unreadable?: string;
  /**
   * The folder's extension files (extensionPins.ts). trusted: the folder is
   * trusted and neither `.rt/config.json` nor any pinned file changed since;
   * changed: trusted, but `changes` lists what differs (none of them is read);
   * untrusted: never trusted. `pins` is taken only for a trusted folder.
   */
  extensions: { state: TrustState; changes: PinChange[]; pins?: ExtensionPins };
}

export interface ProjectInspection {
  files: ConfigFiles;
  user: Record<string, unknown>;
  project: Record<string, unknown>;
  /** What applies of the project file: all of it when trusted, its harmless keys otherwise. */
  applied: Record<string, unknown>;
  trust: ProjectTrust;
}

/** The digest a trust record pins: the project file's parsed content, keys sorted. */
export function projectDigest(project: Record<string, unknown>): string {
  return crypto.createHash("sha256").update(canonicalJson(project)).digest("hex");
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/** Reads both files and decides what of the project's applies. Throws ConfigError naming the file at fault. */
export function inspectProject(workspace: { root: string; env: NodeJS.ProcessEnv }): ProjectInspection {
  const root = realRoot(workspace.root);
  const files = configFiles(root, workspace.env);
  const user = validate(readObject(files.user, false), files.user);
  let project: Record<string, unknown>;
  let unreadable: string | undefined;
  try {
    project = readObject(files.project, true);
  } catch (e) {
    if (!(e instanceof ProjectFileRefused)) throw e;
    [project, unreadable] = [{}, e.message];
  }
  const { harmless, untrusted } = classifyProjectConfig(project, { root, user });
  const digest = projectDigest(project);
  let state: TrustState = "untrusted";
  let storeProblem: string | undefined;
  let trustedAt: string | undefined;
  let extensions: ProjectTrust["extensions"] = { state: "untrusted", changes: [] };
  try {
    const record = trustRecordFor(root, workspace.env);
    if (record) {
      state = record.config_sha256 === digest ? "trusted" : "changed";
      trustedAt = record.trusted_at;
      // The pins are taken only here, for a trusted folder: an untrusted one reads no extension file anyway.
      const pins = pinExtensionFiles(root);
      const changes = diffPins(record.extension_files ?? {}, pins);
      if (state === "changed")
        changes.unshift({ file: ".rt/config.json", change: fs.existsSync(files.project) ? "edited" : "removed" });
      extensions = { state: changes.length ? "changed" : "trusted", changes, pins };
    }
  } catch (e) {
    if (!(e instanceof TrustStoreError)) throw e;
    storeProblem = e.message;
  }
  const applied = validate(state === "trusted" ? project : harmless, files.project);
  const trust: ProjectTrust = {
    root,
    state,
    ignored: state === "trusted" ? [] : untrusted,
    untrustedKeys: untrusted,
    digest,
    ...(storeProblem ? { storeProblem } : {}),
    ...(trustedAt ? { trustedAt } : {}),
    ...(unreadable ? { unreadable } : {}),
    extensions,
  };
  return { files, user, project, applied, trust };
}

export interface LoadedConfig {
  config: RtConfig;
  files: ConfigFiles;
  /** For each configured database, the file it comes from. */
  databaseOrigins: Record<string, string>;
  /** The project's trust, and the keys of its file that were ignored. */
  trust: ProjectTrust;
}

/**
 * Everything `loadConfig` returns, plus where each database came from and the
 * project's trust. Ignored project keys are named once per process on standard
 * error (`notice: false` keeps quiet, for `rt trust` itself).
 */
export function loadConfigDetailed(
  workspace: { root: string; env: NodeJS.ProcessEnv },
  opts: { notice?: boolean } = {},
): LoadedConfig {
  const { files, user, applied, trust } = inspectProject(workspace);
  const merged = RtConfigSchema.safeParse(mergeConfig(user, applied));
  if (!merged.success) throw new ConfigError(`${files.user} + ${files.project}: ${describeIssues(merged.error)}`);
  if (opts.notice !== false) {
    noticeIgnoredKeys(trust);
    if (trust.unreadable)
      noticeOnce(
        `unreadable\0${trust.root}\0${trust.unreadable}`,
        `rt: ignoring the project's configuration: ${trust.unreadable}\n`,
      );
  }
  const databaseOrigins: Record<string, string> = {};
  for (const name of Object.keys((user.databases as object | undefined) ?? {})) databaseOrigins[name] = files.user;
  for (const name of Object.keys((applied.databases as object | undefined) ?? {}))
    databaseOrigins[name] = files.project;
  return { config: merged.data, files, databaseOrigins, trust };
}

/**
 * Whether the project's extension files (.mcp.json, .rt/tools, commands,
 * agents) may be read: the folder is trusted and none of them (nor
 * .rt/config.json) changed since. When they changed, says once on standard
 * error which files did and how to trust them again (unless `notice: false`).
 */
export function projectExtensionsTrusted(
  workspace: { root: string; env: NodeJS.ProcessEnv },
  opts: { notice?: boolean } = {},
): boolean {
  let trust: ProjectTrust;
  try {
    trust = inspectProject(workspace).trust;
  } catch {
    return false;
  }
  const ext = trust.extensions;
  if (ext.state === "changed" && opts.notice !== false && Object.keys(ext.pins ?? {}).length > 0) {
    noticeOnce(
      `extensions\0${trust.root}\0${JSON.stringify(ext.changes)}`,
      changedExtensionsNotice(trust.root, ext.changes),
    );
  }
  return ext.state === "trusted";
}

/** The user's configuration merged with what applies of the project's (which wins), validated. Throws ConfigError naming the file at fault. */
export function loadConfig(workspace: { root: string; env: NodeJS.ProcessEnv }): RtConfig {
  return loadConfigDetailed(workspace).config;
}
