// How many tokens a model can take in, when nobody configured it: asked of the
// server where it says (Ollama's /api/show; vLLM, OpenRouter and LM Studio list
// it in /models), else a small table of well-known models. Configuration wins
// over all of these (resolve.ts); DEFAULT_CONTEXT_WINDOW is the last resort.
import { OLLAMA_MAX_CONTEXT_WINDOW, PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";

/** Prefix → window, longest prefix first wins. Published limits of the hosted models. */
const KNOWN: Array<[prefix: string, tokens: number]> = [
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["claude-", 200_000],
  ["deepseek-chat", 128_000],
  ["deepseek-reasoner", 128_000],
  ["gemini-1.5", 1_048_576],
  ["gemini-2", 1_048_576],
];

/** The window of a well-known hosted model (an OpenRouter-style "vendor/" prefix is ignored), or undefined. */
export function knownContextWindow(model: string): number | undefined {
  const bare = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best: [string, number] | undefined;
  for (const entry of KNOWN) if (bare.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}

async function fetchJson(url: string, init: RequestInit, timeoutMs: number): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) return undefined;
  return res.json();
}

const positive = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined;

/**
 * Ollama: the window rt uses with a model nobody configured, from POST /api/show
 * (`root` is Ollama's own address, without /v1). The `num_ctx` the model's
 * Modelfile sets wins (someone chose it; capped at the trained window);
 * otherwise the model's trained `<arch>.context_length`, capped at
 * OLLAMA_MAX_CONTEXT_WINDOW (Ollama allocates the whole KV cache for num_ctx up
 * front). Undefined when Ollama says neither. rt sends the result as num_ctx
 * (ollama.ts), so Ollama and rt's compaction agree.
 */
export async function ollamaContextWindow(
  root: string,
  model: string,
  timeoutMs = PROVIDER_PROBE_TIMEOUT_MS,
  /** The provider's own headers (its key, a proxy's auth), as every other request sends them. */
  headers: Record<string, string> = {},
): Promise<number | undefined> {
  try {
    const data = (await fetchJson(
      `${root.replace(/\/+$/, "")}/api/show`,
      { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ model }) },
      timeoutMs,
    )) as { model_info?: Record<string, unknown>; parameters?: string } | undefined;
    if (!data) return undefined;
    let trained: number | undefined;
    for (const [key, value] of Object.entries(data.model_info ?? {}))
      if (key.endsWith(".context_length")) trained = positive(value) ?? trained;
    const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(data.parameters ?? "");
    const configured = numCtx ? positive(Number(numCtx[1])) : undefined;
    if (configured) return trained ? Math.min(trained, configured) : configured;
    return trained ? Math.min(trained, OLLAMA_MAX_CONTEXT_WINDOW) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * OpenAI-compatible servers that list a window in GET /models: vLLM (max_model_len),
 * OpenRouter (context_length), LM Studio (loaded_context_length, max_context_length),
 * llama.cpp (meta.n_ctx_train).
 */
export async function listedContextWindow(
  baseURL: string,
  model: string,
  apiKey: string | undefined,
  timeoutMs = PROVIDER_PROBE_TIMEOUT_MS,
): Promise<number | undefined> {
  try {
    const data = (await fetchJson(
      `${baseURL.replace(/\/+$/, "")}/models`,
      { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
      timeoutMs,
    )) as { data?: Array<Record<string, unknown>> } | undefined;
    const entry = data?.data?.find((m) => m.id === model);
    if (!entry) return undefined;
    const meta = entry.meta as Record<string, unknown> | undefined;
    return (
      positive(entry.loaded_context_length) ??
      positive(entry.max_model_len) ??
      positive(entry.context_length) ??
      positive(entry.max_context_length) ??
      positive(meta?.n_ctx_train)
    );
  } catch {
    return undefined;
  }
}

/** Which probe fits which provider: Ollama's /api/show, a listing in /models, or the table alone. */
export async function contextWindowFor(
  p: { name: string; baseURL: string; apiKey?: string; ollamaRoot?: string },
  model: string,
): Promise<number | undefined> {
  if (p.name === "ollama") return ollamaContextWindow(p.ollamaRoot ?? p.baseURL.replace(/\/v1\/?$/, ""), model);
  // OpenAI's and Anthropic's model lists do not carry the window.
  if (p.name === "openai" || p.name === "anthropic") return knownContextWindow(model);
  return (await listedContextWindow(p.baseURL, model, p.apiKey)) ?? knownContextWindow(model);
}
