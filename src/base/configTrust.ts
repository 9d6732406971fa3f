// Which keys of a project's `.rt/config.json` apply before the user trusts the
// folder. A repository can commit that file, so everything in it is untrusted
// input. The table below is an allowlist: a key applies from an untrusted
// project only when a row says it is harmless (limits, temperature, prices...);
// a key no row names (a typo, a key of a feature added later) waits for trust.
// Keys that can send a secret somewhere, weaken approvals or the sandbox, or
// reach a database have rows too, marked "untrusted", so the table documents
// them. A feature that adds configuration (custom tools, hooks, MCP servers,
// agents) adds its row here; until it does, its keys are untrusted anyway.
import fs from "node:fs";
import path from "node:path";
import {
  AGENT_COMPACT_THRESHOLD,
  AGENT_DEFAULT_MAX_TURNS,
  AGENT_DEFAULT_SUBAGENT_DEPTH,
  AGENT_TOOL_OUTPUT_MAX_CHARS,
  ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_CONTEXT_WINDOW,
  SQL_STATEMENT_TIMEOUT_MS,
  TRUST_NOTICE_MAX_FILES,
  TRUST_NOTICE_MAX_KEYS,
} from "./limits.js";
import { shellQuote } from "./text.js";

/** harmless: applies from an untrusted project. untrusted: only once the folder is trusted. descend: decided key by key below. */
export type Verdict = "harmless" | "untrusted" | "descend";

export interface TrustContext {
  /** The workspace root (a real path). */
  root: string;
  /** The user's own configuration (~/.config/rt/config.json), already validated. */
  user: Record<string, unknown>;
  /** The whole project file, for rows that look at a sibling (default_database names an entry of databases). */
  project: Record<string, unknown>;
}

export interface KeyRule {
  /** Dotted key path; `*` stands for any one name (a provider, a database). */
  key: string;
  verdict: Verdict | ((value: unknown, ctx: TrustContext, keyPath: string[]) => Verdict);
  /** Why, in a few words (the README's table says the same). */
  why: string;
}

/** Providers rt knows by name (src/agent/providers/resolve.ts BUILTIN_PROVIDERS; a test keeps both lists equal). */
export const BUILTIN_PROVIDER_NAMES: readonly string[] = [
  "ollama",
  "openai",
  "openai-responses",
  "anthropic",
  "openai-compatible",
  "openrouter",
  "lmstudio",
  "vllm",
  "llamacpp",
];
/** The provider a bare model name belongs to (resolve.ts: DEFAULT_PROVIDER). */
const DEFAULT_PROVIDER = "ollama";
/** Connections the environment describes are named after their engine (src/db/connections.ts connectionsFromEnv). */
export const ENVIRONMENT_CONNECTION_NAMES: readonly string[] = ["sqlite", "postgres", "oracle", "vertica"];

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function userProviders(ctx: TrustContext): Record<string, unknown> {
  return isPlainObject(ctx.user.providers) ? ctx.user.providers : {};
}

/** A provider the user can reach without the project: built in, or described in the user's configuration. */
function userKnowsProvider(name: string, ctx: TrustContext): boolean {
  return BUILTIN_PROVIDER_NAMES.includes(name) || Object.hasOwn(userProviders(ctx), name);
}

/** The provider a "provider/model" (or bare model, or bare provider) names, as resolve.ts splits it. */
function providerOfSpec(spec: string, ctx: TrustContext): string {
  const slash = spec.indexOf("/");
  if (slash < 0) return userKnowsProvider(spec, ctx) ? spec : DEFAULT_PROVIDER;
  return spec.slice(0, slash);
}

/** The model part of a spec ("ollama/qwen:7b" → "qwen:7b"; a bare model is all model; a bare provider has none). */
function modelOfSpec(spec: string, ctx: TrustContext): string {
  const slash = spec.indexOf("/");
  if (slash >= 0) return spec.slice(slash + 1);
  return userKnowsProvider(spec, ctx) ? "" : spec;
}

/** The protocol a provider the user knows speaks: its `type` in the user's configuration, else by name. */
function kindOf(provider: string, ctx: TrustContext): string {
  const mine = userProviders(ctx)[provider];
  if (isPlainObject(mine) && typeof mine.type === "string") return mine.type;
  return provider === "ollama" ? "ollama" : provider;
}

/**
 * Where the model name itself decides who receives the prompt, behind the
 * same host and key: OpenRouter passes it to the vendor its first part names
 * (openrouter/x-ai/..., openrouter/deepseek/...), and an Ollama tagged `cloud`
 * (gpt-oss:120b-cloud, glm-4.6:cloud) runs on ollama.com. The destination, or
 * undefined when the model runs where the provider is.
 */
function modelDestination(provider: string, model: string, ctx: TrustContext): string | undefined {
  if (provider === "openrouter")
    return model.includes("/")
      ? `openrouter vendor ${model.slice(0, model.indexOf("/"))}`
      : "openrouter (vendor unnamed)";
  if (kindOf(provider, ctx) === "ollama") {
    const colon = model.lastIndexOf(":");
    const tag = colon >= 0 ? model.slice(colon + 1).toLowerCase() : "";
    if (tag === "cloud" || tag.endsWith("-cloud")) return "ollama.com";
  }
  return undefined;
}

/**
 * The project's `model` is harmless when it picks a model of the provider the
 * user's own configuration uses (same host, same key) and the name does not
 * send the prompt on to someone else (modelDestination): the same vendor
 * through OpenRouter, a local model of an Ollama.
 */
function modelVerdict(value: unknown, ctx: TrustContext): Verdict {
  if (typeof value !== "string" || value === "") return "untrusted";
  const userModel = typeof ctx.user.model === "string" && ctx.user.model !== "" ? ctx.user.model : undefined;
  if (value === userModel) return "harmless";
  const mine = userModel ? providerOfSpec(userModel, ctx) : DEFAULT_PROVIDER;
  const theirs = providerOfSpec(value, ctx);
  if (theirs !== mine || !userKnowsProvider(theirs, ctx)) return "untrusted";
  const where = modelDestination(theirs, modelOfSpec(value, ctx), ctx);
  if (where === undefined) return "harmless";
  return userModel !== undefined && where === modelDestination(mine, modelOfSpec(userModel, ctx), ctx)
    ? "harmless"
    : "untrusted";
}

/** The user's own number at `keys` in their configuration, if they set one. */
function userNumber(ctx: TrustContext, keys: string[]): number | undefined {
  let v: unknown = ctx.user;
  for (const k of keys) {
    if (!isPlainObject(v) || !Object.hasOwn(v, k)) return undefined;
    v = v[k];
  }
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * A limit from an untrusted project applies only when it is no looser than
 * what applies without it: the user's own value, else rt's default (`fallback`;
 * none: only the user's value bounds it). A project can make rt stop sooner,
 * answer shorter or read less; it cannot make it run longer, spend more of the
 * user's tokens or allocate more memory on the user's model server.
 */
function atMost(fallback: number | undefined, userPath: (keyPath: string[]) => string[]) {
  return (value: unknown, ctx: TrustContext, keyPath: string[]): Verdict => {
    const bound = userNumber(ctx, userPath(keyPath)) ?? fallback;
    return typeof value === "number" && Number.isFinite(value) && bound !== undefined && value <= bound
      ? "harmless"
      : "untrusted";
  };
}

/** Per-model context windows: each one no larger than the user's own for that model, else DEFAULT_CONTEXT_WINDOW. */
function contextWindowsVerdict(value: unknown, ctx: TrustContext, keyPath: string[]): Verdict {
  if (!isPlainObject(value)) return "untrusted";
  for (const [model, n] of Object.entries(value)) {
    const bound = userNumber(ctx, [...keyPath, model]) ?? DEFAULT_CONTEXT_WINDOW;
    if (typeof n !== "number" || !Number.isFinite(n) || n > bound) return "untrusted";
  }
  return "harmless";
}

/** Ollama's `think`: turning thinking off applies; turning it on (or up) only as the user set it. */
function thinkVerdict(value: unknown, ctx: TrustContext, keyPath: string[]): Verdict {
  if (value === false) return "harmless";
  const providers = userProviders(ctx);
  const mine = isPlainObject(providers[keyPath[1]])
    ? (providers[keyPath[1]] as Record<string, unknown>).think
    : undefined;
  return mine !== undefined && mine === value ? "harmless" : "untrusted";
}

/** `path` (relative to root) lies inside the root, symlinks of its existing part resolved. */
export function insideRoot(root: string, rel: string): boolean {
  if (rel.includes("\0") || path.isAbsolute(rel) || rel.startsWith("~")) return false;
  const within = (p: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  const lexical = path.resolve(root, rel);
  if (!within(lexical)) return false;
  // The nearest existing ancestor, real: a symlinked directory in the repository must not lead out.
  let probe = lexical;
  const rest: string[] = [];
  for (;;) {
    try {
      fs.lstatSync(probe);
      break;
    } catch {
      rest.unshift(path.basename(probe));
      const parent = path.dirname(probe);
      if (parent === probe) return false;
      probe = parent;
    }
  }
  let real: string;
  try {
    real = fs.realpathSync(probe);
  } catch {
    return false; // a dangling symlink
  }
  return within(path.join(real, ...rest));
}

/**
 * A project database applies untrusted only when it is a SQLite file inside the
 * root (rt's file tools can read it anyway) under a name neither the user's
 * configuration nor the environment uses (it must not replace their connection).
 */
function databaseVerdict(value: unknown, ctx: TrustContext, keyPath: string[]): Verdict {
  const name = keyPath[1];
  if (!isPlainObject(value) || value.type !== "sqlite" || typeof value.path !== "string" || value.path === "")
    return "untrusted";
  if (ENVIRONMENT_CONNECTION_NAMES.includes(name)) return "untrusted";
  if (isPlainObject(ctx.user.databases) && Object.hasOwn(ctx.user.databases, name)) return "untrusted";
  // A longer statement timeout is no limit: a FIFO planted as the file would hold the call that long.
  if (
    value.timeout_ms !== undefined &&
    !(typeof value.timeout_ms === "number" && value.timeout_ms <= SQL_STATEMENT_TIMEOUT_MS)
  )
    return "untrusted";
  return insideRoot(ctx.root, value.path) ? "harmless" : "untrusted";
}

/** default_database applies untrusted when the user set none and it names one of the project's harmless SQLite files. */
function defaultDatabaseVerdict(value: unknown, ctx: TrustContext): Verdict {
  if (typeof value !== "string" || ctx.user.default_database !== undefined) return "untrusted";
  const dbs = ctx.project.databases;
  if (!isPlainObject(dbs) || !Object.hasOwn(dbs, value)) return "untrusted";
  return databaseVerdict(dbs[value], ctx, ["databases", value]);
}

const PROVIDER_HARMLESS = ["max_retries", "first_part_timeout_ms", "idle_timeout_ms"];
const LIMIT_WHY =
  "a limit applies when it is no looser than yours (or rt's default): a project can make rt do less, never spend more of your tokens or memory";
/** Agent limits and the default each is bounded by when the user set none. */
const AGENT_LIMITS: ReadonlyArray<[string, number]> = [
  ["max_turns", AGENT_DEFAULT_MAX_TURNS],
  ["tool_output_max_chars", AGENT_TOOL_OUTPUT_MAX_CHARS],
  ["compact_threshold", AGENT_COMPACT_THRESHOLD],
  ["context_window", DEFAULT_CONTEXT_WINDOW],
  ["max_output_tokens", ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS],
  ["subagent_depth", AGENT_DEFAULT_SUBAGENT_DEPTH],
];

/** The table. Order does not matter: a key path matches the row of the same length whose segments match. */
export const PROJECT_KEY_RULES: readonly KeyRule[] = [
  {
    key: "model",
    verdict: modelVerdict,
    why: "a model of the provider your own configuration uses applies; another provider would send your prompts and files to another host",
  },
  { key: "providers", verdict: "descend", why: "decided per provider" },
  {
    key: "providers.*",
    verdict: (_v, ctx, p) => (userKnowsProvider(p[1], ctx) ? "descend" : "untrusted"),
    why: "a provider only the project defines implies a host of the project's choosing",
  },
  { key: "providers.*.base_url", verdict: "untrusted", why: "where prompts, files and the API key are sent" },
  {
    key: "providers.*.api_key",
    verdict: "untrusted",
    why: "a key of the project's choosing: its owner could read your prompts in their account",
  },
  {
    key: "providers.*.api_key_env",
    verdict: "untrusted",
    why: "would read any environment variable (GITHUB_TOKEN...) and send it as a key",
  },
  {
    key: "providers.*.headers",
    verdict: "untrusted",
    why: "sent with every request: can carry credentials or reroute through a proxy",
  },
  { key: "providers.*.type", verdict: "untrusted", why: "changes the protocol, and with it which key goes where" },
  ...PROVIDER_HARMLESS.map(
    (k): KeyRule => ({
      key: `providers.*.${k}`,
      verdict: "harmless",
      why: "retries and patience of a provider you configured",
    }),
  ),
  {
    key: "providers.*.context_windows",
    verdict: contextWindowsVerdict,
    why: `${LIMIT_WHY} (Ollama allocates the whole window up front)`,
  },
  {
    key: "providers.*.thinking_budget_tokens",
    verdict: atMost(undefined, (p) => p),
    why: "turns Anthropic's extended thinking on (tokens you pay for): applies only up to your own budget for that provider",
  },
  {
    key: "providers.*.think",
    verdict: thinkVerdict,
    why: "false (thinking off) applies; turning thinking on or up only as you set it",
  },
  {
    key: "providers.*.vision",
    verdict: (v) => (v === false ? "harmless" : "untrusted"),
    why: "false (no images to the model) applies; sending images (tokens you pay for, to a model that may refuse them) only as you set it",
  },
  { key: "agent", verdict: "descend", why: "decided per setting" },
  ...AGENT_LIMITS.map(
    ([k, fallback]): KeyRule => ({ key: `agent.${k}`, verdict: atMost(fallback, (p) => p), why: LIMIT_WHY }),
  ),
  { key: "agent.temperature", verdict: "harmless", why: "sampling only" },
  {
    key: "agent.tool_choice",
    verdict: "harmless",
    why: "whether the model must, may or may not call tools; approvals still decide every call",
  },
  {
    key: "agent.tools",
    verdict: (v, ctx) => {
      const mine = isPlainObject(ctx.user.agent) ? ctx.user.agent.tools : undefined;
      return v === "lean" || v === (mine ?? "default") ? "harmless" : "untrusted";
    },
    why: "lean only narrows what the model is offered (the policy and approvals still decide every call); the full set applies only where it is already yours",
  },
  {
    key: "agent.prices",
    verdict: "untrusted",
    why: "the cost rt shows you: a project could make it read zero, or replace your own prices",
  },
  {
    key: "agent.approval",
    verdict: (v) => (v === "ask" || v === "never" ? "harmless" : "untrusted"),
    why: "only modes that ask at least as often as the default (ask, never) apply; auto-edit and auto approve without asking, plan runs text-mode commands unasked",
  },
  {
    key: "agent.protocol",
    verdict: (v) => (v === "tools" || v === "auto" ? "harmless" : "untrusted"),
    why: "text mode runs the model's shell blocks with rt's shim on PATH (in plan mode without asking)",
  },
  { key: "databases", verdict: "descend", why: "decided per connection" },
  {
    key: "databases.*",
    verdict: databaseVerdict,
    why: "a connection sends credentials to its host and can read files outside the root; only a SQLite file inside the root, under a name you and the environment do not use, applies",
  },
  {
    key: "default_database",
    verdict: defaultDatabaseVerdict,
    why: "chooses where unnamed queries go; applies only when you set none and it names one of the project's harmless SQLite files",
  },
  // Reserved for features that run programs or carry their own prompts and models: never from an untrusted project.
  { key: "mcp_servers", verdict: "untrusted", why: "MCP servers run programs" },
  { key: "mcpServers", verdict: "untrusted", why: "MCP servers run programs" },
  {
    key: "mcp_env_allowlist",
    verdict: "untrusted",
    why: "which of your environment variables a project's MCP servers may receive: rt reads it from your own configuration only, never a project's",
  },
  { key: "hooks", verdict: "untrusted", why: "hooks run programs" },
  { key: "tools", verdict: "untrusted", why: "custom tools run programs" },
  { key: "agents", verdict: "untrusted", why: "agents carry their own prompts, tools and models" },
  {
    key: "local",
    verdict: "untrusted",
    why: "local models: what rt downloads (and from where) and which model file it loads into memory",
  },
  // Language servers.
  { key: "lsp", verdict: "descend", why: "decided per setting" },
  {
    key: "lsp.servers",
    verdict: "untrusted",
    why: "a language server is a program: the repository would choose what rt runs",
  },
  { key: "lsp.edit_diagnostics", verdict: "harmless", why: "only adds the errors an edit introduced to its result" },
  {
    key: "lsp.edit_diagnostics_start_timeout_ms",
    verdict: "harmless",
    why: "how long an edit waits for a server to start",
  },
  {
    key: "lsp.idle_timeout_ms",
    verdict: "harmless",
    why: "how long an idle server lives (servers start only when the lsp tool is used)",
  },
  { key: "lsp.request_timeout_ms", verdict: "harmless", why: "how long a request may wait" },
  { key: "agent.small_model", verdict: "untrusted", why: "a model the project chooses, paid with the user's key" },
  { key: "tui", verdict: "descend", why: "decided per setting" },
  { key: "tui.queued_prompts", verdict: "harmless", why: "when a message typed during a turn is sent" },
  { key: "web", verdict: "descend", why: "decided per setting" },
  { key: "web.blocked_domains", verdict: "harmless", why: "only refuses more fetches" },
  { key: "web.fetch_timeout_ms", verdict: "harmless", why: "how long a fetch may take" },
  { key: "web.allowed_domains", verdict: "untrusted", why: "a repository could narrow fetches to its own site" },
  { key: "web.allow_private_addresses", verdict: "untrusted", why: "would let a fetch reach the user's own network" },
  { key: "web.allow_hosts", verdict: "untrusted", why: "would let a fetch reach hosts of the user's own network" },
  { key: "web.search", verdict: "untrusted", why: "names an API key variable and the server it is sent to" },
];

function matches(pattern: string[], keyPath: string[]): boolean {
  return pattern.length === keyPath.length && pattern.every((seg, i) => seg === "*" || seg === keyPath[i]);
}

const SPLIT_RULES = PROJECT_KEY_RULES.map((r) => ({ rule: r, pattern: r.key.split(".") }));

/** The row for a key path, if any (a named row wins over a `*` row). */
export function ruleFor(keyPath: string[]): KeyRule | undefined {
  const candidates = SPLIT_RULES.filter((r) => matches(r.pattern, keyPath));
  candidates.sort((a, b) => a.pattern.filter((s) => s === "*").length - b.pattern.filter((s) => s === "*").length);
  return candidates[0]?.rule;
}

/** The verdict for one key of the project file. No row: untrusted (the table is an allowlist). */
export function verdictFor(keyPath: string[], value: unknown, ctx: TrustContext): Verdict {
  const rule = ruleFor(keyPath);
  if (!rule) return "untrusted";
  return typeof rule.verdict === "function" ? rule.verdict(value, ctx, keyPath) : rule.verdict;
}

export interface UntrustedKey {
  path: string[];
  value: unknown;
}

export interface Classification {
  /** The part of the project file that applies before trust. */
  harmless: Record<string, unknown>;
  /** What waits for trust, in file order. */
  untrusted: UntrustedKey[];
}

/** Sets a key without ever touching a prototype (a JSON key may be "__proto__"). */
function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Splits a project file into what applies before trust and what waits for it. */
export function classifyProjectConfig(
  project: Record<string, unknown>,
  ctx: Omit<TrustContext, "project">,
): Classification {
  const full: TrustContext = { ...ctx, project };
  const untrusted: UntrustedKey[] = [];
  const walk = (obj: Record<string, unknown>, at: string[]): Record<string, unknown> => {
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const keyPath = [...at, k];
      let verdict = k === "__proto__" || hasInvisible(k) ? "untrusted" : verdictFor(keyPath, v, full);
      // No setting needs a control or invisible character, and rt's messages would carry it to the terminal (a SQLite path, a model name).
      if (verdict === "harmless" && holdsInvisible(v)) verdict = "untrusted";
      if (verdict === "harmless") define(kept, k, v);
      else if (verdict === "descend" && isPlainObject(v)) {
        const sub = walk(v, keyPath);
        if (Object.keys(sub).length) define(kept, k, sub);
      } else untrusted.push({ path: keyPath, value: v });
    }
    return kept;
  };
  return { harmless: walk(project, []), untrusted };
}

/** JSON with object keys sorted, so the same settings always give the same digest. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Characters a terminal acts on or a reader cannot see: controls (C0, DEL, C1),
 * format characters (zero-width spaces and joiners, bidirectional overrides and
 * isolates, the BOM, soft hyphen, tag characters), line and paragraph
 * separators, and the blank fillers that render as nothing.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;

/** Whether `text` holds a character of INVISIBLE. */
export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  return INVISIBLE.test(text);
}

/** `text` with every INVISIBLE character written as an escape (\u001b, \u{e0041}), so that it is seen and never acted on. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const cp = c.codePointAt(0)!;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
  });
}

/** Whether a JSON value holds a key or a string with an invisible character anywhere. */
function holdsInvisible(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (hasInvisible(v)) return true;
    } else if (Array.isArray(v)) stack.push(...v);
    else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (hasInvisible(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/** One key path for a person: `providers.anthropic.base_url`; an odd name is quoted (`providers["a.b"].x`) and long ones cut. */
export function formatKeyPath(keyPath: string[]): string {
  return keyPath
    .map((seg, i) => {
      const s = seg.length > 64 ? `${seg.slice(0, 61)}...` : seg;
      if (/^[A-Za-z0-9_-]+$/.test(s)) return i === 0 ? s : `.${s}`;
      return `[${escapeInvisible(JSON.stringify(s))}]`;
    })
    .join("");
}

/**
 * The keys a person must see first when only some can be shown: where prompts,
 * files and keys go, then approvals, databases, and what would run programs.
 * Everything else (unknown keys, limits) comes after, so a file cannot push its
 * dangerous keys behind "and N more" with a dozen harmless-looking ones.
 */
const SHOWN_FIRST: readonly string[][] = [
  "model",
  "providers.*",
  "providers.*.base_url",
  "providers.*.api_key_env",
  "providers.*.api_key",
  "providers.*.headers",
  "providers.*.type",
  "agent.approval",
  "agent.protocol",
  "databases.*",
  "default_database",
  "mcp_servers",
  "hooks",
  "tools",
  "agents",
].map((k) => k.split("."));

/** `keys` in the order a person should read them (SHOWN_FIRST, then file order). */
export function inShownOrder(keys: UntrustedKey[]): UntrustedKey[] {
  const rank = (p: string[]) => {
    const i = SHOWN_FIRST.findIndex((pattern) => matches(pattern, p));
    return i < 0 ? SHOWN_FIRST.length : i;
  };
  return keys
    .map((k, i) => ({ k, i, r: rank(k.path) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.k);
}

/** Key paths for one line: at most TRUST_NOTICE_MAX_KEYS (the dangerous first), then "and N more". */
export function formatKeyList(keys: UntrustedKey[]): string {
  const shown = inShownOrder(keys)
    .slice(0, TRUST_NOTICE_MAX_KEYS)
    .map((k) => formatKeyPath(k.path));
  const more = keys.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

const SECRET_NAME = /pass|secret|token|api_?key|auth|headers/i;

/** A value for a person deciding whether to trust it: JSON, secrets hidden, control characters escaped, at most `max` characters. */
export function describeValue(keyPath: string[], value: unknown, max = 100): string {
  // A *_env key names a variable (worth seeing: GITHUB_TOKEN); its value is not the secret.
  const secret = (k: string) => SECRET_NAME.test(k) && !/_env$/i.test(k);
  const hide = (k: string, v: unknown): unknown => {
    if (secret(k) && v !== undefined && v !== null && v !== "") return "(hidden)";
    if (typeof v === "string") return v.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
    return v;
  };
  const last = keyPath[keyPath.length - 1] ?? "";
  const text = secret(last) ? '"(hidden)"' : escapeInvisible(JSON.stringify(value, hide) ?? "null");
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** Keys whose string value names a host even without a scheme (Ollama's `host:port`, PostgreSQL's host, Oracle's DSN). */
const HOST_KEYS = /^(base_url|url|host|hostname|dsn|endpoint|proxy)$/i;

/** The host (and port) a string names, as a DNS client sees it: look-alike letters come out as punycode (xn--...). */
function hostOf(key: string, s: string): string | undefined {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : HOST_KEYS.test(key) ? `http://${s}` : undefined;
  if (text === undefined) return undefined;
  try {
    return new URL(text).host || undefined;
  } catch {
    return undefined;
  }
}

/** Every host a value names, anywhere inside it (at most MAX_HOSTS_SHOWN, then how many more). */
function hostsIn(keyPath: string[], value: unknown): string {
  const hosts = new Set<string>();
  const stack: Array<[string, unknown]> = [[keyPath[keyPath.length - 1] ?? "", value]];
  while (stack.length) {
    const [k, v] = stack.pop()!;
    if (typeof v === "string") {
      const h = hostOf(k, v);
      if (h) hosts.add(escapeInvisible(h));
    } else if (Array.isArray(v)) for (const x of v) stack.push([k, x]);
    else if (isPlainObject(v)) for (const [kk, x] of Object.entries(v).reverse()) stack.push([kk, x]);
  }
  const all = [...hosts];
  const shown = all.slice(0, MAX_HOSTS_SHOWN).join(", ");
  return all.length > MAX_HOSTS_SHOWN ? `${shown} and ${all.length - MAX_HOSTS_SHOWN} more` : shown;
}
const MAX_HOSTS_SHOWN = 4;

/**
 * "  key = value" lines for the keys that wait for trust (at most
 * TRUST_NOTICE_MAX_KEYS, the dangerous first, then how many more). A value is
 * cut at 100 characters, so the hosts it names are said after it: padding or a
 * long object cannot hide where it sends data.
 */
export function settingLines(keys: UntrustedKey[]): string {
  const shown = inShownOrder(keys)
    .slice(0, TRUST_NOTICE_MAX_KEYS)
    .map((k) => {
      const hosts = hostsIn(k.path, k.value);
      return `  ${formatKeyPath(k.path)} = ${describeValue(k.path, k.value)}${hosts ? `  (host: ${hosts})` : ""}\n`;
    });
  const more = keys.length - shown.length;
  return shown.join("") + (more > 0 ? `  ... and ${more} more\n` : "");
}

/** Quotes a path for the shell when it needs it (the command printed must work when pasted). */
export function shellQuotePath(p: string): string {
  // A name with control characters is shown escaped: printing it raw would let a directory name drive the terminal.
  return shellQuote(escapeInvisible(p));
}

export type TrustState = "trusted" | "untrusted" | "changed";

/** The one stderr line saying what was ignored and how to trust. */
export function ignoredNotice(report: {
  root: string;
  state: TrustState;
  ignored: UntrustedKey[];
  storeProblem?: string;
}): string {
  const keys = formatKeyList(report.ignored);
  const cmd = `rt trust ${shellQuotePath(report.root)}`;
  const problem = report.storeProblem ? ` (${report.storeProblem})` : "";
  if (report.state === "changed") {
    return `rt: ignoring .rt/config.json keys ${keys}: the file changed since you trusted this folder; review it, then: ${cmd}${problem}\n`;
  }
  return `rt: ignoring .rt/config.json keys ${keys} until you trust this folder: ${cmd}${problem}\n`;
}

/** "a (added), b (edited)": at most TRUST_NOTICE_MAX_FILES, then how many more. */
export function formatChanges(changes: ReadonlyArray<{ file: string; change: string }>): string {
  const shown = changes.slice(0, TRUST_NOTICE_MAX_FILES).map((c) => `${escapeInvisible(c.file)} (${c.change})`);
  const more = changes.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

/** The one stderr line saying the folder's extension files changed since it was trusted and are not read. */
export function changedExtensionsNotice(
  root: string,
  changes: ReadonlyArray<{ file: string; change: string }>,
): string {
  return (
    `rt: not reading this folder's extension files (.mcp.json, .rt/tools, .rt/commands, .rt/agents, ` +
    `.claude/commands, .claude/agents, .claude/settings*.json, .claude/hooks): ` +
    `changed since you trusted it: ${formatChanges(changes)}; review them with: rt trust ${shellQuotePath(root)}\n`
  );
}

type NoticeSink = (line: string) => void;
const defaultSink: NoticeSink = (line) => {
  process.stderr.write(line);
};
let sink: NoticeSink = defaultSink;
const noticed = new Set<string>();

/** Where the ignored-keys line goes (standard error by default; never standard output, which may carry a protocol). */
export function setTrustNoticeSink(fn: NoticeSink | undefined): void {
  sink = fn ?? defaultSink;
}

/** Writes `line` to the notice sink once per process for each `id`. */
export function noticeOnce(id: string, line: string): void {
  if (noticed.has(id)) return;
  noticed.add(id);
  sink(escapeInvisible(line.replace(/\n$/, "")) + "\n");
}

/** Says once per process (per folder and file content) which project keys were ignored. */
export function noticeIgnoredKeys(report: {
  root: string;
  state: TrustState;
  ignored: UntrustedKey[];
  digest: string;
  storeProblem?: string;
}): void {
  if (report.ignored.length === 0) return;
  noticeOnce(`${report.root}\0${report.state}\0${report.digest}`, ignoredNotice(report));
}
