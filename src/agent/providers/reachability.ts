// Before the agent's first turn: is the chosen server there, does it take the
// key, does it have the model? When not, the message the CLI prints (then it
// exits 2): what was tried and why, and how to choose another provider.
import { PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";
import { withModel, type ResolvedModel } from "./resolve.js";
import { ProviderError } from "./types.js";

export type Reachability =
  | { ok: true; resolved: ResolvedModel }
  | {
      ok: false;
      /** The whole text to print, several lines, ending without a newline. */
      message: string;
      reason: "no_key" | "unreachable" | "auth" | "no_model" | "model_missing";
    };

const OLLAMA_EXAMPLE_MODEL = "qwen2.5-coder:7b";

/** How to choose another provider: flags, environment, configuration file. */
export function configureHelp(
  resolved: Pick<ResolvedModel, "configFiles">,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const user = resolved.configFiles?.user ?? "~/.config/rt/config.json";
  const project = resolved.configFiles?.project ?? ".rt/config.json";
  const lines = [
    "To use another provider, name it with --model PROVIDER/MODEL (rt run, rt chat):",
    '  rt run --model anthropic/claude-sonnet-4-5 "..."    key in ANTHROPIC_API_KEY',
    '  rt run --model openai/gpt-4.1 "..."                 key in OPENAI_API_KEY',
    '  rt run --model openai-compatible/MODEL --base-url http://HOST:PORT/v1 "..."   vLLM, llama.cpp, LM Studio...',
    "Environment: OLLAMA_HOST (another Ollama), OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.",
    `Or once for all runs, in ${user} (yours) or ${project} (this project's: it wins once you trust the folder with rt trust):`,
    "  {",
    '    "model": "anthropic/claude-sonnet-4-5",',
    '    "providers": { "anthropic": { "api_key_env": "ANTHROPIC_API_KEY" } }',
    "  }",
  ];
  // A key already in the environment is the likeliest way out.
  if (env.ANTHROPIC_API_KEY) lines.push("ANTHROPIC_API_KEY is set: --model anthropic/claude-sonnet-4-5 would use it.");
  else if (env.OPENAI_API_KEY) lines.push("OPENAI_API_KEY is set: --model openai/gpt-4.1 would use it.");
  return lines.join("\n");
}

/** Why this server was tried: "the default, as no model is configured", "from --model, address from OPENAI_BASE_URL". */
function why(resolved: ResolvedModel): string {
  const parts = [
    resolved.origins.model === "the default"
      ? "the default, as no model is configured"
      : `from ${resolved.origins.model}`,
  ];
  if (resolved.origins.baseURL !== "the default" && resolved.origins.baseURL !== resolved.origins.model)
    parts.push(`address from ${resolved.origins.baseURL}`);
  return parts.join("; ");
}

function failure(
  resolved: ResolvedModel,
  reason: Extract<Reachability, { ok: false }>["reason"],
  first: string,
  advice: string[],
  env: NodeJS.ProcessEnv,
): Reachability {
  const message = [`rt: ${first}`, ...advice, "", configureHelp(resolved, env)].join("\n");
  return { ok: false, message, reason };
}

/** Ollama lists "llama3:latest" for "llama3". */
function sameModel(wanted: string, listed: string): boolean {
  return wanted === listed || `${wanted}:latest` === listed || wanted === `${listed}:latest`;
}

/**
 * Asks the server for its models (Ollama: GET /api/tags; others: GET /models).
 * Ok: the resolved choice, with a model picked when none was named (the server's
 * first: Ollama lists the most recently pulled first).
 */
export async function checkReachable(
  resolved: ResolvedModel,
  opts: { timeoutMs?: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
): Promise<Reachability> {
  const env = opts.env ?? process.env;
  const tried = `${resolved.target} (${why(resolved)})`;
  const isOllama = resolved.kind === "ollama";
  const ollamaAdvice = isOllama
    ? [
        `Start Ollama (\`ollama serve\`) and pull a model (\`ollama pull ${OLLAMA_EXAMPLE_MODEL}\`), or point OLLAMA_HOST at a running one.`,
      ]
    : [];

  if (resolved.missingKey) {
    const where = resolved.keyEnv ? `set ${resolved.keyEnv}, or pass --api-key` : "pass --api-key";
    return failure(
      resolved,
      "no_key",
      `${resolved.target} needs an API key and none was given (tried ${resolved.label}, ${why(resolved)}).`,
      [`To use it: ${where}.`],
      env,
    );
  }

  let models: string[] | undefined;
  let listError: string | undefined;
  try {
    models =
      (await resolved.provider.listModels?.({
        timeoutMs: opts.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS,
        signal: opts.signal,
      })) ?? undefined;
  } catch (err) {
    const e = err instanceof ProviderError ? err : new ProviderError(String(err), "unreachable");
    if (e.kind === "aborted") throw e;
    if (e.kind === "unreachable" || e.kind === "timeout") {
      const detail = e.message.startsWith(`cannot reach ${resolved.target}: `)
        ? e.message.slice(`cannot reach ${resolved.target}: `.length)
        : e.message;
      return failure(resolved, "unreachable", `cannot reach a model. Tried ${tried}: ${detail}.`, ollamaAdvice, env);
    }
    if (e.kind === "auth") {
      const keyFrom = resolved.origins.key ? ` (the key came from ${resolved.origins.key})` : "";
      return failure(resolved, "auth", `${resolved.target} rejected the API key${keyFrom}: ${e.message}`, [], env);
    }
    // Anything else (no /models route, a 500 there): the server is up; the first turn will tell more.
    models = undefined;
    listError = e.message;
  }

  if (resolved.model === undefined) {
    const first = models?.[0];
    if (!first) {
      const advice = isOllama
        ? [`Pull one: \`ollama pull ${OLLAMA_EXAMPLE_MODEL}\`.`]
        : [`Name one: --model ${resolved.providerName}/MODEL.`];
      const what = models ? "lists no model" : `does not list its models${listError ? ` (${listError})` : ""}`;
      return failure(
        resolved,
        "no_model",
        `${resolved.target} answers but ${what}, and none was named (${why(resolved)}).`,
        advice,
        env,
      );
    }
    return { ok: true, resolved: withModel(resolved, first) };
  }

  // Only Ollama's list is complete enough to refuse a model that is not in it.
  if (isOllama && models && !models.some((m) => sameModel(resolved.model!, m))) {
    const pulled = models.length ? `pulled: ${models.join(", ")}` : "none pulled";
    return failure(
      resolved,
      "model_missing",
      `${resolved.target} has no model "${resolved.model}" (${pulled}; tried ${resolved.label}, ${why(resolved)}).`,
      [`Pull it: \`ollama pull ${resolved.model}\`, or name a pulled one with --model ollama/NAME.`],
      env,
    );
  }
  return { ok: true, resolved };
}
