// Which provider and model the agent talks to, from `--model provider/model`,
// the environment and the configuration; and the one place that builds the
// Provider for that choice.
//
// Precedence, for each setting: flag > environment > project config
// (.rt/config.json) > user config (~/.config/rt/config.json) > built-in default.
// (loadConfig already merges the project's file over the user's.) Until the user
// trusts the folder, the project's file brings no host, key, header or provider
// of its own (loadConfig leaves those keys out: src/base/configTrust.ts), so a key
// from the user's environment goes only to a host the user chose: the default,
// the environment, the user's configuration, a flag. With nothing
// configured, the agent talks to a local Ollama at 127.0.0.1:11434, through its
// native chat API (/api/chat: the only one that takes the context size,
// num_ctx), with the most recently pulled model. An "openai-compatible"
// provider pointed at an Ollama stays on its /v1.
import { configFiles, loadConfig, type ConfigFiles, type ProviderConfig, type RtConfig } from "../../base/config.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createOllamaProvider } from "./ollama.js";
import { createOpenAICompatibleProvider } from "./openaiCompatible.js";
import { createOpenAIResponsesProvider, withResponsesFor } from "./openaiResponses.js";
import type { ProviderOptions } from "./options.js";
import type { RetryOptions, TimeoutOptions } from "./retry.js";
import { inProcessProviderOf, resolveInProcess, type InProcessResolution } from "./resolveLocal.js";
import type { Provider } from "./types.js";

/** The protocol a provider speaks. */
export type ProviderKind =
  | "ollama"
  | "openai"
  | "anthropic"
  | "openai-compatible"
  | "openai-responses"
  | "local"
  | "scripted";

interface Preset {
  kind: ProviderKind;
  /** How messages name it. */
  title: string;
  baseURL?: string;
  /** Environment variable with the base URL (only for these built-in names). */
  baseEnv?: string;
  /** Environment variable with the key. */
  keyEnv?: string;
  /** A hosted API: a key is required while the base URL is the preset's, and a model must be named. */
  hosted?: boolean;
}

/** Providers usable by name with no configuration. */
export const BUILTIN_PROVIDERS: Readonly<Record<string, Preset>> = {
  ollama: { kind: "ollama", title: "Ollama", baseURL: "http://127.0.0.1:11434", baseEnv: "OLLAMA_HOST" },
  openai: {
    kind: "openai",
    title: "OpenAI",
    baseURL: "https://api.openai.com/v1",
    baseEnv: "OPENAI_BASE_URL",
    keyEnv: "OPENAI_API_KEY",
    hosted: true,
  },
  anthropic: {
    kind: "anthropic",
    title: "Anthropic",
    baseURL: "https://api.anthropic.com",
    baseEnv: "ANTHROPIC_BASE_URL",
    keyEnv: "ANTHROPIC_API_KEY",
    hosted: true,
  },
  // OpenAI's Responses API for any model (`openai` uses it by itself only for the models served there alone).
  "openai-responses": {
    kind: "openai-responses",
    title: "OpenAI (Responses API)",
    baseURL: "https://api.openai.com/v1",
    baseEnv: "OPENAI_BASE_URL",
    keyEnv: "OPENAI_API_KEY",
    hosted: true,
  },
  "openai-compatible": {
    kind: "openai-compatible",
    title: "the OpenAI-compatible server",
    baseEnv: "OPENAI_BASE_URL",
    keyEnv: "OPENAI_API_KEY",
  },
  openrouter: {
    kind: "openai-compatible",
    title: "OpenRouter",
    baseURL: "https://openrouter.ai/api/v1",
    keyEnv: "OPENROUTER_API_KEY",
    hosted: true,
  },
  lmstudio: { kind: "openai-compatible", title: "LM Studio", baseURL: "http://127.0.0.1:1234/v1" },
  vllm: { kind: "openai-compatible", title: "vLLM", baseURL: "http://127.0.0.1:8000/v1" },
  llamacpp: { kind: "openai-compatible", title: "llama.cpp's server", baseURL: "http://127.0.0.1:8080/v1" },
};

const DEFAULT_PROVIDER = "ollama";
export const OLLAMA_DEFAULT_PORT = 11434;

/** What `rt run` / `rt chat` take on the command line. */
export interface ModelFlags {
  /** --model provider/model, or just a model name for the default provider. */
  model?: string;
  /** --base-url */
  baseUrl?: string;
  /** --api-key */
  apiKey?: string;
}

export interface ResolveInput {
  flags?: ModelFlags;
  env?: NodeJS.ProcessEnv;
  /** The merged configuration (loadConfig). */
  config?: RtConfig;
  /** Where the configuration files are (named in messages). */
  configFiles?: ConfigFiles;
  /** Overrides for the provider's retries and timeouts (tests bring them down to milliseconds). */
  providerOptions?: { retry?: Partial<RetryOptions>; timeouts?: Partial<TimeoutOptions> };
}

export interface ResolvedModel {
  provider: Provider;
  /** "ollama", "anthropic", "lmstudio"... as named in --model or the config. */
  providerName: string;
  kind: ProviderKind;
  /** The model name sent to the API. Undefined: the server's first model, which checkReachable picks. */
  model: string | undefined;
  /** "provider/model": how rt names the model (sessions, prices, /model). */
  label: string;
  /** The API's base URL (Ollama: its own address, without /v1). */
  baseURL: string;
  /** "Ollama at http://127.0.0.1:11434": how messages name the server. */
  target: string;
  hasKey: boolean;
  /** Whether a key is needed and missing (a hosted API at its own address). */
  missingKey: boolean;
  /** Where each choice came from, in words: "--model", "OLLAMA_HOST", "the configuration", "the default". */
  origins: { model: string; baseURL: string; key?: string };
  /** The environment variable a key would come from, for messages. */
  keyEnv?: string;
  configFiles?: ConfigFiles;
  /** The `local` provider: which model file, whether it is downloaded, its settings. */
  local?: InProcessResolution["local"];
}

/** A choice that cannot work as stated (unknown provider, missing model or base URL). The CLI exits 2. */
export class ModelChoiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelChoiceError";
  }
}

/**
 * OLLAMA_HOST as Ollama itself reads it: "host" or "host:port" (port 11434 by
 * default), or a URL with a scheme ("https://host" means port 443, as for
 * Ollama); "0.0.0.0" (listen everywhere) is reached on the loopback.
 * Returns Ollama's own address, without a trailing /v1.
 */
export function ollamaRoot(spec: string): string {
  let s = spec.trim().replace(/\/+$/, "").replace(/\/v1$/, "");
  const bare = !/^[a-z]+:\/\//i.test(s);
  if (bare) s = `http://${s}`;
  const url = new URL(s);
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  if (url.hostname === "[::]") url.hostname = "[::1]";
  const hostPart = s.replace(/^[a-z]+:\/\//i, "").split("/")[0];
  if (bare && !/:\d+$/.test(hostPart)) url.port = String(OLLAMA_DEFAULT_PORT);
  return url.toString().replace(/\/+$/, "");
}

/**
 * "provider/model" → both; "model" → a model of the default provider; a bare
 * provider name ("anthropic") → that provider, model to be named or picked.
 */
function splitSpec(
  spec: string,
  known: (name: string) => boolean,
  where: string,
): { provider?: string; model?: string } {
  const slash = spec.indexOf("/");
  if (slash < 0) return known(spec) ? { provider: spec } : { model: spec || undefined };
  const prefix = spec.slice(0, slash);
  if (!known(prefix)) {
    throw new ModelChoiceError(
      `${where}: unknown provider "${prefix}" in "${spec}". Use one of ${Object.keys(BUILTIN_PROVIDERS).join(", ")}, ` +
        `or describe it under "providers" in the configuration (e.g. "providers": {"${prefix}": {"base_url": "http://HOST:PORT/v1"}}).`,
    );
  }
  return { provider: prefix, model: spec.slice(slash + 1) || undefined };
}

const configWord = (key: string) => `the configuration (${key})`;

/**
 * The local/scripted spec chosen, if any: --model naming one, or the configuration's
 * model naming one when --model does not name another provider (a bare `--model NAME`
 * is then a local model's name).
 */
function inProcessSpec(flags: ModelFlags, config: RtConfig): string | undefined {
  if (inProcessProviderOf(flags.model)) return flags.model;
  if (flags.baseUrl || !inProcessProviderOf(config.model)) return undefined;
  if (!flags.model) return config.model;
  const fromConfig = inProcessProviderOf(config.model)!;
  return !flags.model.includes("/") && !Object.hasOwn(BUILTIN_PROVIDERS, flags.model)
    ? `${fromConfig}/${flags.model}`
    : undefined;
}

export function resolveModel(input: ResolveInput = {}): ResolvedModel {
  const flags = input.flags ?? {};
  const env = input.env ?? process.env;
  const config = input.config ?? {};
  const providersConfig = (config.providers ?? {}) as Record<string, ProviderConfig>;
  // Own names only: `in` would also find "constructor", "toString", "__proto__"... on every object's prototype.
  const known = (name: string) =>
    Object.hasOwn(BUILTIN_PROVIDERS, name) || Object.hasOwn(providersConfig, name) || !!inProcessProviderOf(name);

  // local and scripted run in this process: no address, no key (resolveLocal.ts).
  const inProcess = inProcessSpec(flags, config);
  if (inProcess) {
    let r: InProcessResolution;
    try {
      r = resolveInProcess(inProcess, config, env);
    } catch (e) {
      throw new ModelChoiceError((e as Error).message);
    }
    return {
      provider: r.provider,
      providerName: r.providerName,
      kind: r.providerName,
      model: r.model,
      label: r.label,
      baseURL: "",
      target: r.target,
      hasKey: false,
      missingKey: false,
      origins: { model: flags.model ? "--model" : configWord("model"), baseURL: "the default" },
      ...(r.local ? { local: r.local } : {}),
      ...(input.configFiles ? { configFiles: input.configFiles } : {}),
    };
  }

  // Provider and model: --model, then "model" in the configuration, then the default.
  const fromConfig = config.model ? splitSpec(config.model, known, `"model" in the configuration`) : {};
  const fromFlag = flags.model ? splitSpec(flags.model, known, "--model") : {};
  const providerName =
    fromFlag.provider ?? fromConfig.provider ?? (flags.baseUrl ? "openai-compatible" : DEFAULT_PROVIDER);
  // A bare `--model NAME` keeps the configured provider; a model from the configuration counts only with its own provider.
  const model =
    fromFlag.model ??
    (fromFlag.provider === undefined || fromFlag.provider === fromConfig.provider ? fromConfig.model : undefined);
  const modelOrigin = flags.model
    ? "--model"
    : config.model
      ? configWord("model")
      : flags.baseUrl
        ? "--base-url"
        : "the default";

  const preset = Object.hasOwn(BUILTIN_PROVIDERS, providerName) ? BUILTIN_PROVIDERS[providerName] : undefined;
  const pc: ProviderConfig =
    (Object.hasOwn(providersConfig, providerName) ? providersConfig[providerName] : undefined) ?? {};
  const kind: ProviderKind = pc.type ?? preset?.kind ?? "openai-compatible";
  const title = preset?.title ?? `"${providerName}"`;

  // Base URL.
  let base: string | undefined;
  let baseOrigin: string;
  const baseEnv = preset?.baseEnv ? env[preset.baseEnv] : undefined;
  if (flags.baseUrl) [base, baseOrigin] = [flags.baseUrl, "--base-url"];
  else if (baseEnv) [base, baseOrigin] = [baseEnv, preset!.baseEnv!];
  else if (pc.base_url) [base, baseOrigin] = [pc.base_url, configWord(`providers.${providerName}.base_url`)];
  else [base, baseOrigin] = [preset?.baseURL, "the default"];
  if (!base) {
    throw new ModelChoiceError(
      `${title} needs a base URL: pass --base-url http://HOST:PORT/v1, ${preset?.baseEnv ? `set ${preset.baseEnv}, ` : ""}` +
        `or set "providers": {"${providerName}": {"base_url": "http://HOST:PORT/v1"}} in the configuration.`,
    );
  }
  let root: string | undefined;
  let baseURL: string;
  try {
    if (kind === "ollama") {
      root = ollamaRoot(base);
      baseURL = root;
    } else {
      const url = new URL(base);
      baseURL = url.toString().replace(/\/+$/, "");
      // The Anthropic client appends /v1/messages itself.
      if (kind === "anthropic") baseURL = baseURL.replace(/\/v1$/, "");
    }
  } catch {
    throw new ModelChoiceError(`${baseOrigin}: "${base}" is not a URL (expected e.g. http://127.0.0.1:8000/v1)`);
  }

  // Key.
  let key: string | undefined;
  let keyOrigin: string | undefined;
  const keyEnv = pc.api_key_env ?? preset?.keyEnv;
  if (flags.apiKey) [key, keyOrigin] = [flags.apiKey, "--api-key"];
  else if (preset?.keyEnv && env[preset.keyEnv]) [key, keyOrigin] = [env[preset.keyEnv], preset.keyEnv];
  else if (pc.api_key_env && env[pc.api_key_env])
    [key, keyOrigin] = [
      env[pc.api_key_env],
      `${pc.api_key_env} (${configWord(`providers.${providerName}.api_key_env`)})`,
    ];
  else if (pc.api_key) [key, keyOrigin] = [pc.api_key, configWord(`providers.${providerName}.api_key`)];

  const hostedAtHome = !!preset?.hosted && baseOrigin === "the default";
  if (hostedAtHome && !model) {
    const examples: Record<string, string> = {
      anthropic: "claude-sonnet-4-5",
      openai: "gpt-4.1",
      "openai-responses": "gpt-5.1-codex",
    };
    const example = examples[providerName] ?? "MODEL";
    throw new ModelChoiceError(`${title}: name a model, e.g. --model ${providerName}/${example}`);
  }

  const target = kind === "ollama" ? `${title} at ${root}` : `${title} at ${baseURL}`;
  const common: ProviderOptions = {
    baseURL,
    apiKey: key,
    target,
    headers: pc.headers,
    ...(pc.vision !== undefined ? { vision: pc.vision } : {}),
    retry: { ...(pc.max_retries !== undefined ? { maxRetries: pc.max_retries } : {}), ...input.providerOptions?.retry },
    timeouts: {
      ...(pc.first_part_timeout_ms !== undefined ? { firstPartMs: pc.first_part_timeout_ms } : {}),
      ...(pc.idle_timeout_ms !== undefined ? { idleMs: pc.idle_timeout_ms } : {}),
      ...input.providerOptions?.timeouts,
    },
  };
  const thinkTags = pc.think_tags !== undefined ? { thinkTags: pc.think_tags } : {};
  const chatOptions = { ...common, contextWindows: pc.context_windows, ...thinkTags };
  const provider =
    kind === "anthropic"
      ? createAnthropicProvider({
          ...common,
          thinkingBudgetTokens: pc.thinking_budget_tokens,
          contextWindows: pc.context_windows,
        })
      : kind === "ollama"
        ? createOllamaProvider({
            ...common,
            contextWindows: pc.context_windows,
            ...(pc.think !== undefined ? { think: pc.think } : {}),
          })
        : kind === "openai-responses"
          ? createOpenAIResponsesProvider(chatOptions)
          : kind === "openai"
            ? // OpenAI's models served on the Responses API only go there (openaiResponses.ts: needsResponsesApi).
              withResponsesFor(createOpenAICompatibleProvider({ ...chatOptions, name: kind }), () =>
                createOpenAIResponsesProvider(chatOptions),
              )
            : createOpenAICompatibleProvider({ ...chatOptions, name: kind });

  return {
    provider,
    providerName,
    kind,
    model,
    label: `${providerName}/${model ?? ""}`,
    baseURL,
    target,
    hasKey: !!key,
    missingKey: hostedAtHome && !key,
    origins: { model: modelOrigin, baseURL: baseOrigin, ...(keyOrigin ? { key: keyOrigin } : {}) },
    ...(keyEnv ? { keyEnv } : {}),
    ...(input.configFiles ? { configFiles: input.configFiles } : {}),
  };
}

/** resolveModel with the workspace's configuration files and environment. Throws ConfigError or ModelChoiceError. */
export function resolveModelForWorkspace(
  workspace: { root: string; env: NodeJS.ProcessEnv },
  flags: ModelFlags = {},
  providerOptions?: ResolveInput["providerOptions"],
): ResolvedModel {
  return resolveModel({
    flags,
    env: workspace.env,
    config: loadConfig(workspace),
    configFiles: configFiles(workspace.root, workspace.env),
    providerOptions,
  });
}

/** The same choice with another model of the same provider (what checkReachable does when it picks one). */
export function withModel(resolved: ResolvedModel, model: string): ResolvedModel {
  return { ...resolved, model, label: `${resolved.providerName}/${model}` };
}
