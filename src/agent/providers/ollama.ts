// Ollama through its native chat API (POST /api/chat, NDJSON stream), not its
// OpenAI-compatible /v1: only the native API takes `options.num_ctx`, and
// without it Ollama runs the model with its own small default context (2048 or
// 4096 tokens, or OLLAMA_CONTEXT_LENGTH) and silently drops the start of longer
// prompts, while rt's system prompt and tool schemas alone take several
// thousand tokens. So every request carries num_ctx = the window rt budgets
// for (ModelRequest.contextWindow, else this provider's own contextWindow()).
//
// Plain fetch: the protocol is one JSON object a line, and retries, timeouts
// and error kinds are the same as for every provider (retry.ts, errors.ts).
//
// A server at OLLAMA_HOST that answers /api/chat with a plain 404 (not
// Ollama's "model not found") speaks only the OpenAI-compatible protocol (an
// older Ollama behind a proxy, LM Studio, a test double): rt then talks to its
// /v1 for the rest of the process, as it did before the native API.
import { DEFAULT_CONTEXT_WINDOW, PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";
import { ollamaContextWindow } from "./contextWindow.js";
import { configuredVision, ollamaVision } from "./vision.js";
import { ollamaModels } from "./ollamaModels.js";
import { listModelsError } from "./errors.js";
import type { ProviderOptions } from "./options.js";
import { createOpenAICompatibleProvider } from "./openaiCompatible.js";
import { OllamaChunkAssembler, toOllamaMessages, toOllamaTools, type OllamaChunk } from "./ollamaMessages.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, streamTurn } from "./retry.js";
import { ProviderError, type ModelRequest, type Provider, type StreamPart } from "./types.js";

export interface OllamaOptions extends ProviderOptions {
  /** Ollama's own address, without /v1 ("http://127.0.0.1:11434"); a trailing /v1 is dropped. */
  baseURL: string;
  /** Configured context windows by model name; they win over what Ollama reports. */
  contextWindows?: Record<string, number>;
  /**
   * `think` of every request (thinking models); absent: the model's default. A boolean,
   * or a level: Ollama documents "low" | "medium" | "high" (| "max"), and GPT-OSS takes
   * only levels (it ignores true/false).
   */
  think?: OllamaThink;
}

/** What a failed HTTP answer looks like to classifyError (the SDK error shape): status, headers, Ollama's `{error}` body. */
async function httpError(res: Response): Promise<unknown> {
  let text = "";
  try {
    text = await res.text();
  } catch {
    // The body could not be read: the status says enough.
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML page): the text itself.
  }
  const message = typeof body === "string" ? body.slice(0, 500) : undefined;
  return { status: res.status, headers: res.headers, error: message ?? body, message: message ?? `${res.status}` };
}

/** The lines of an NDJSON body, decoded; a last line without a newline counts too. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) yield line;
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield buffer.trim();
}

/** Ollama's `think`: on, off, or a thinking level. */
export type OllamaThink = boolean | "low" | "medium" | "high" | "max";

export function createOllamaProvider(opts: OllamaOptions): Provider {
  const root = opts.baseURL.replace(/\/+$/, "").replace(/\/v1$/, "");
  const target = opts.target ?? `Ollama at ${root}`;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
    ...opts.headers,
  };
  // One probe per model: num_ctx must not change between the requests of a session.
  const windows = new Map<string, Promise<number | undefined>>();
  const visions = new Map<string, Promise<boolean | undefined>>();

  const contextWindow = (model: string): Promise<number | undefined> => {
    const configured = opts.contextWindows?.[model];
    if (configured !== undefined) return Promise.resolve(configured);
    let p = windows.get(model);
    if (!p) {
      p = ollamaContextWindow(root, model, PROVIDER_PROBE_TIMEOUT_MS, headers);
      windows.set(model, p);
    }
    return p;
  };

  async function body(req: ModelRequest) {
    const numCtx = req.contextWindow ?? (await contextWindow(req.model)) ?? DEFAULT_CONTEXT_WINDOW;
    const options: Record<string, number> = { num_ctx: numCtx };
    if (req.temperature !== undefined) options.temperature = req.temperature;
    if (req.maxOutputTokens !== undefined) options.num_predict = req.maxOutputTokens;
    return {
      model: req.model,
      messages: toOllamaMessages(req.messages),
      ...(req.tools?.length ? { tools: toOllamaTools(req.tools) } : {}),
      stream: true,
      options,
      ...(opts.think !== undefined ? { think: opts.think } : {}),
    };
  }

  async function* attempt(req: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const payload = JSON.stringify(await body(req));
    const res = await fetch(`${root}/api/chat`, { method: "POST", headers, body: payload, signal });
    if (!res.ok || !res.body) throw await httpError(res);
    const assembler = new OllamaChunkAssembler();
    for await (const line of lines(res.body)) {
      alive();
      let chunk: OllamaChunk;
      try {
        chunk = JSON.parse(line) as OllamaChunk;
      } catch {
        throw new ProviderError(
          `the stream from ${target} broke: a line is not JSON (${line.slice(0, 120)})`,
          "stream_broken",
        );
      }
      // An error inside the stream (no HTTP status): classified by what it says (errors.ts).
      if (chunk.error !== undefined && chunk.error !== null) throw { error: chunk.error };
      yield* assembler.push(chunk);
      if (assembler.finished) break;
    }
    if (signal.aborted) return; // runWithRetries says why
    if (!assembler.finished && assembler.housekeeping) {
      // Not worth a retry: the same request gets the same answer.
      throw new ProviderError(
        `${target} answered done_reason "${assembler.housekeeping}": it ${assembler.housekeeping}ed the model and generated nothing (Ollama answers so to a request without messages)`,
        "stream_error",
      );
    }
    if (!assembler.finished)
      throw new ProviderError(
        `the stream from ${target} ended before the answer was complete (no "done" line)`,
        "stream_broken",
      );
    yield* assembler.end();
  }

  // The same server through its OpenAI-compatible /v1; chat goes there once /api/chat proved missing.
  let v1: Provider | undefined;
  let chatViaV1 = false;
  const openAICompatible = (): Provider =>
    (v1 ??= createOpenAICompatibleProvider({
      baseURL: `${root}/v1`,
      name: "openai-compatible",
      target,
      ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    }));

  return {
    name: "ollama",
    stream(req: ModelRequest): AsyncIterable<StreamPart> {
      if (chatViaV1) return openAICompatible().stream(req);
      const native = streamTurn(req, { target, retry, timeouts }, attempt);
      return (async function* () {
        let started = false;
        try {
          for await (const part of native) {
            started = true;
            yield part;
          }
        } catch (err) {
          const noNativeApi =
            !started && err instanceof ProviderError && err.status === 404 && err.kind === "bad_request";
          if (!noNativeApi) throw err;
          chatViaV1 = true;
          yield* openAICompatible().stream(req);
        }
      })();
    },
    contextWindow,
    vision(model: string) {
      const configured = configuredVision(opts.vision, model);
      if (configured !== undefined) return Promise.resolve(configured);
      let p = visions.get(model);
      if (!p) {
        p = ollamaVision(root, model, headers);
        visions.set(model, p);
      }
      return p;
    },
    async listModels(o = {}) {
      try {
        return await ollamaModels(
          root,
          o.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS,
          o.signal,
          opts.apiKey || opts.headers ? headers : undefined,
        );
      } catch (err) {
        // No /api/tags: a server that speaks only the OpenAI-compatible protocol lists its models at /v1/models.
        // (When that fails too, what /api/tags said is the clearer message.)
        if (err instanceof ProviderError && err.status === 404) {
          const listed = await openAICompatible().listModels!(o).catch(() => undefined);
          if (listed) return listed;
        }
        throw listModelsError(err, target, o.signal);
      }
    },
  };
}
