// Chat completions, streamed: OpenAI itself and every server that speaks its
// API (vLLM, llama.cpp's server, LM Studio, OpenRouter; Ollama's /v1 too, though
// rt talks to Ollama through its native API: ollama.ts).
//
// Why the official `openai` package rather than the `ai` SDK's providers: rt
// needs the raw chunks, because local servers put reasoning in fields no
// typed SDK models (`reasoning_content` for vLLM/llama.cpp/DeepSeek, `reasoning`
// for Ollama/OpenRouter), and it owns retries and timeouts itself (see
// retry.ts). The official client gives the request (URL, headers, error classes
// for an HTTP error) without an abstraction layer to see through; the event
// stream is read by rt (sse.ts), since what an error inside it says, and the
// usage that comes with it, decide what happens next. It is loaded with
// import() on first use so that commands which never talk to a model do not pay
// for it at start-up.
import { PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";
import { contextWindowFor } from "./contextWindow.js";
import { configuredVision, knownVision, ollamaVision } from "./vision.js";
import { listModelsError, missingPackage } from "./errors.js";
import { ollamaModels } from "./ollamaModels.js";
import { withoutEnv, type ProviderOptions } from "./options.js";
import {
  OpenAIChunkAssembler,
  toOpenAIMessages,
  toOpenAITools,
  wholeCompletionChunk,
  type OpenAIChunk,
} from "./openaiMessages.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, streamTurn } from "./retry.js";
import { withSamplingFallback } from "./sampling.js";
import { sseEvents, wholeJsonBody } from "./sse.js";
import { ProviderError, type ModelRequest, type Provider, type StreamPart } from "./types.js";

export interface OpenAICompatibleOptions extends ProviderOptions {
  /** "openai", "ollama", "openai-compatible", or a configured name ("lmstudio"): chooses the context-window probe. */
  name?: string;
  /**
   * OpenAI's own API wants `max_completion_tokens` (its reasoning models reject
   * `max_tokens`); most other servers only know `max_tokens`. Default: by name.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Ollama only: its native address (default: the base URL without /v1), for /api/show and /api/tags. */
  ollamaRoot?: string;
  /** Configured context windows by model name; they win over what the server reports. */
  contextWindows?: Record<string, number>;
  /** Whether an answer that opens with `<think>` has that section read as reasoning (default true). */
  thinkTags?: boolean;
}

type OpenAIClient = import("openai").OpenAI;

/** Placeholder key for local servers: the client refuses to start without one; it is never sent (see the headers below). */
export const NO_KEY = "no-key";

/** Environment variables through which the `openai` client would pick credentials or headers of its own. */
export const OPENAI_CLIENT_ENV = [
  "OPENAI_ADMIN_KEY",
  "OPENAI_CUSTOM_HEADERS",
  "OPENAI_ORG_ID",
  "OPENAI_PROJECT_ID",
  "OPENAI_WEBHOOK_SECRET",
];

/**
 * The official client for `baseURL`, imported on first use and made once: no retries of its own
 * (retry.ts decides), keys only from rt's resolution, never the client's own reading of the
 * environment, and no Authorization header at all without a key. Chat completions and the
 * Responses API share it.
 */
export function lazyOpenAIClient(
  baseURL: string,
  opts: { apiKey?: string; headers?: Record<string, string> },
  firstPartMs: number,
): () => Promise<OpenAIClient> {
  let client: Promise<OpenAIClient> | undefined;
  return () =>
    (client ??= import("openai").then(
      ({ OpenAI }): OpenAIClient =>
        withoutEnv(
          OPENAI_CLIENT_ENV,
          () =>
            new OpenAI({
              apiKey: opts.apiKey || NO_KEY,
              adminAPIKey: null,
              baseURL,
              maxRetries: 0,
              fetch: fetchUnwrappingErrorArrays,
              // Our own timers (retry.ts) decide; this only keeps the client from giving up first.
              timeout: firstPartMs + 1_000,
              defaultHeaders: { ...opts.headers, ...(opts.apiKey ? {} : { Authorization: null }) },
              organization: null,
              project: null,
              webhookSecret: null,
            }),
        ),
      (err: unknown) => {
        client = undefined;
        throw missingPackage("openai", err);
      },
    ));
}

/**
 * Gemini's OpenAI-compatible endpoint sends its errors as a JSON array holding one
 * `{error: {code, message, status}}`; the client reads `body.error` and, from an array, keeps
 * nothing ("400 status code (no body)"). This fetch hands the client the object inside, so the
 * error says what the provider said. Everything else passes through untouched.
 */
export async function fetchUnwrappingErrorArrays(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (res.ok || !/\bjson\b/i.test(res.headers.get("content-type") ?? "")) return res;
  const text = await res.text();
  let body = text;
  try {
    const doc = JSON.parse(text) as unknown;
    if (Array.isArray(doc) && doc.length > 0 && doc[0] && typeof doc[0] === "object" && "error" in doc[0])
      body = JSON.stringify(doc[0]);
  } catch {
    // Not JSON: the client reads the text as it is.
  }
  const headers = new Headers(res.headers);
  // The body is decoded and may be shorter now.
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

export function createOpenAICompatibleProvider(opts: OpenAICompatibleOptions): Provider {
  const name = opts.name ?? "openai-compatible";
  const baseURL = opts.baseURL.replace(/\/+$/, "");
  const target = opts.target ?? baseURL;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const maxTokensField = opts.maxTokensField ?? (name === "openai" ? "max_completion_tokens" : "max_tokens");
  const ollamaRoot = opts.ollamaRoot ?? baseURL.replace(/\/v1$/, "");
  const getClient = lazyOpenAIClient(baseURL, opts, timeouts.firstPartMs);
  const refusedSampling = new Set<string>();

  function body(req: ModelRequest) {
    const tools = req.tools?.length ? toOpenAITools(req.tools) : undefined;
    return {
      model: req.model,
      messages: toOpenAIMessages(req.messages),
      stream: true as const,
      stream_options: { include_usage: true },
      ...(tools ? { tools } : {}),
      ...(tools && req.toolChoice ? { tool_choice: req.toolChoice } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxOutputTokens !== undefined ? { [maxTokensField]: req.maxOutputTokens } : {}),
      // OpenAI caches prompt prefixes by itself; a key per session routes a session's requests to the
      // same cache. Sent to OpenAI's own API only: other servers may reject a field they do not know.
      ...(req.cache?.key && name === "openai" ? { prompt_cache_key: req.cache.key } : {}),
    };
  }

  async function* attempt(req: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const c = await getClient();
    const res = await c.chat.completions
      .create(body(req) as Parameters<OpenAIClient["chat"]["completions"]["create"]>[0] & { stream: true }, { signal })
      .asResponse();
    if (!res.body) throw new ProviderError(`${target} answered ${res.status} without a body`, "stream_broken");
    const assembler = new OpenAIChunkAssembler({ thinkTags: opts.thinkTags });
    const whole = await wholeJsonBody(res, alive);
    if (whole && "json" in whole) {
      // The whole answer at once (the server ignored stream: true): complete, so it is the answer, not a broken stream.
      const doc = whole.json as { error?: unknown };
      if (doc && typeof doc === "object" && doc.error !== undefined && doc.error !== null) throw { error: doc.error };
      const chunk = wholeCompletionChunk(doc);
      if (!chunk) {
        throw new ProviderError(
          `${target} answered the streaming request with JSON that is neither an event stream nor a chat completion: ${JSON.stringify(doc).slice(0, 200)}`,
          "stream_error",
        );
      }
      yield* assembler.push(chunk);
      if (assembler.error !== undefined) throw { error: assembler.error };
      yield* assembler.end();
      return;
    }
    let done = false;
    for await (const ev of sseEvents(whole?.events ?? res.body, alive)) {
      if (ev.data === "[DONE]") {
        done = true;
        break;
      }
      let chunk: OpenAIChunk;
      try {
        chunk = JSON.parse(ev.data) as OpenAIChunk;
      } catch {
        throw new ProviderError(
          `the stream from ${target} broke: an event is not JSON (${ev.data.slice(0, 120)})`,
          "stream_broken",
        );
      }
      // Groq names its error events; the others put an `error` object in a chunk.
      if (ev.event === "error") throw { error: (chunk as { error?: unknown }).error ?? chunk };
      yield* assembler.push(chunk);
      if (assembler.error !== undefined) {
        yield* assembler.partial();
        throw { error: assembler.error };
      }
    }
    if (signal.aborted) return; // runWithRetries says why
    // [DONE] is the server's own word that the answer is whole, finish_reason or not (Snowflake Cortex sends none).
    if (!assembler.finished && !done) {
      yield* assembler.partial();
      const why = "ended before the answer was complete (no finish_reason, no [DONE])";
      throw new ProviderError(`the stream from ${target} ${why}`, "stream_broken");
    }
    yield* assembler.end();
  }

  return {
    name,
    stream(req: ModelRequest): AsyncIterable<StreamPart> {
      return withSamplingFallback(req, refusedSampling, (r) => streamTurn(r, { target, retry, timeouts }, attempt));
    },
    async contextWindow(model: string) {
      return (
        opts.contextWindows?.[model] ?? contextWindowFor({ name, baseURL, apiKey: opts.apiKey, ollamaRoot }, model)
      );
    },
    async vision(model: string) {
      const configured = configuredVision(opts.vision, model);
      if (configured !== undefined) return configured;
      if (name === "ollama") return ollamaVision(ollamaRoot, model, opts.headers);
      return knownVision(model);
    },
    async listModels(o = {}) {
      const timeoutMs = o.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS;
      try {
        if (name === "ollama") return await ollamaModels(ollamaRoot, timeoutMs, o.signal);
        const c = await getClient();
        const page = await c.models.list({ signal: o.signal, timeout: timeoutMs, maxRetries: 0 });
        return page.data.map((m) => m.id);
      } catch (err) {
        throw listModelsError(err, target, o.signal);
      }
    },
  };
}
