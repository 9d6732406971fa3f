// OpenAI's Responses API (/v1/responses), streamed: the protocol "openai-responses".
// OpenAI offers some models only there (the codex models, the -pro models, deep research);
// rt's `openai` provider sends those to it on its own (needsResponsesApi), and any provider
// configured with `"type": "openai-responses"` speaks it for every model.
//
// As for chat completions, the official `openai` package is the transport (URL, headers,
// error classes for an HTTP error), loaded on first use, with its retries off; rt reads the
// event stream itself (sse.ts) and turns it into StreamParts (responsesMessages.ts).
import { PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";
import { contextWindowFor } from "./contextWindow.js";
import { configuredVision, knownVision } from "./vision.js";
import { listModelsError } from "./errors.js";
import { lazyOpenAIClient } from "./openaiCompatible.js";
import type { OpenAICompatibleOptions } from "./openaiCompatible.js";
import { ResponsesEventAssembler, toResponsesInput, toResponsesTools } from "./responsesMessages.js";
import type { ResponsesEvent } from "./responsesMessages.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, streamTurn } from "./retry.js";
import { withSamplingFallback } from "./sampling.js";
import { sseEvents, wholeJsonBody } from "./sse.js";
import { ProviderError, type ModelRequest, type Provider, type StreamPart } from "./types.js";

type OpenAIClient = import("openai").OpenAI;
type ListOptions = Parameters<NonNullable<Provider["listModels"]>>[0];

/**
 * Models OpenAI serves on the Responses API only (its model pages list no Chat Completions
 * endpoint for them): the codex models (gpt-5-codex, gpt-5.1-codex-max, codex-mini-latest...),
 * the -pro models (o1-pro, o3-pro, gpt-5-pro), deep research and computer use.
 */
const RESPONSES_ONLY = new RegExp(
  [
    /codex/,
    /(?:^|\/)o\d+(?:-mini)?-(?:pro|deep-research)\b/,
    /(?:^|\/)gpt-5(?:\.\d+)?-pro\b/,
    /deep-research/,
    /computer-use/,
  ]
    .map((r) => r.source)
    .join("|"),
  "i",
);

export function needsResponsesApi(model: string | undefined): boolean {
  return !!model && RESPONSES_ONLY.test(model);
}

/**
 * Reasoning models (o-series, gpt-5 and later, codex): only they take `reasoning` and return
 * reasoning items; other models answer 400 to a `reasoning` parameter.
 */
export function isReasoningModel(model: string): boolean {
  const name = model.replace(/^.*\//, "");
  return /^(?:o\d|gpt-5|gpt-oss|codex)/i.test(name) || /codex/i.test(name);
}

export function createOpenAIResponsesProvider(opts: OpenAICompatibleOptions): Provider {
  const baseURL = opts.baseURL.replace(/\/+$/, "");
  const target = opts.target ?? baseURL;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const getClient = lazyOpenAIClient(baseURL, opts, timeouts.firstPartMs);
  const refusedSampling = new Set<string>();

  function body(req: ModelRequest) {
    const { instructions, input } = toResponsesInput(req.messages);
    const reasoning = isReasoningModel(req.model);
    return {
      model: req.model,
      input,
      stream: true as const,
      // Nothing is kept on OpenAI's side: the conversation, reasoning included, travels in every request.
      store: false,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(req.tools?.length ? { tools: toResponsesTools(req.tools) } : {}),
      ...(reasoning ? { reasoning: { summary: "auto" }, include: ["reasoning.encrypted_content"] } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxOutputTokens !== undefined ? { max_output_tokens: req.maxOutputTokens } : {}),
    };
  }

  async function* attempt(req: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const c = await getClient();
    const res = await c.responses
      .create(body(req) as unknown as Parameters<OpenAIClient["responses"]["create"]>[0] & { stream: true }, { signal })
      .asResponse();
    if (!res.body) throw new ProviderError(`${target} answered ${res.status} without a body`, "stream_broken");
    const assembler = new ResponsesEventAssembler();
    const whole = await wholeJsonBody(res, alive);
    if (whole && "json" in whole) {
      const doc = whole.json as { error?: unknown } | null;
      if (doc && typeof doc === "object" && doc.error) throw { error: doc.error };
      const said = JSON.stringify(doc).slice(0, 200);
      throw new ProviderError(
        `${target} answered the streaming request with JSON that is not an event stream: ${said}`,
        "stream_error",
      );
    }
    for await (const ev of sseEvents(whole?.events ?? res.body, alive)) {
      if (ev.data === "[DONE]") break;
      let event: ResponsesEvent;
      try {
        event = JSON.parse(ev.data) as ResponsesEvent;
      } catch {
        const said = ev.data.slice(0, 120);
        throw new ProviderError(`the stream from ${target} broke: an event is not JSON (${said})`, "stream_broken");
      }
      yield* assembler.push(event);
      if (assembler.failure) {
        yield* assembler.partial();
        throw { error: assembler.failure.error };
      }
      if (assembler.finished) break;
    }
    if (signal.aborted) return; // runWithRetries says why
    if (!assembler.finished) {
      yield* assembler.partial();
      const why = "ended before the answer was complete (no response.completed)";
      throw new ProviderError(`the stream from ${target} ${why}`, "stream_broken");
    }
    yield* assembler.end();
  }

  return {
    name: "openai-responses",
    stream(req: ModelRequest): AsyncIterable<StreamPart> {
      return withSamplingFallback(req, refusedSampling, (r) => streamTurn(r, { target, retry, timeouts }, attempt));
    },
    async contextWindow(model: string) {
      return opts.contextWindows?.[model] ?? contextWindowFor({ name: "openai", baseURL, apiKey: opts.apiKey }, model);
    },
    async vision(model: string) {
      return configuredVision(opts.vision, model) ?? knownVision(model);
    },
    async listModels(o = {}) {
      try {
        const c = await getClient();
        const timeout = o.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS;
        const page = await c.models.list({ signal: o.signal, timeout, maxRetries: 0 });
        return page.data.map((m) => m.id);
      } catch (err) {
        throw listModelsError(err, target, o.signal);
      }
    },
  };
}

/**
 * OpenAI's own provider: chat completions, except for the models served on the Responses API
 * only, which go there (chosen per request, so that switching models in a session works).
 */
export function withResponsesFor(chat: Provider, responses: () => Provider): Provider {
  let r: Provider | undefined;
  const pick = (model: string) => (needsResponsesApi(model) ? (r ??= responses()) : chat);
  return {
    name: chat.name,
    stream: (req) => pick(req.model).stream(req),
    ...(chat.contextWindow ? { contextWindow: (model: string) => chat.contextWindow!(model) } : {}),
    ...(chat.vision ? { vision: (model: string) => chat.vision!(model) } : {}),
    ...(chat.listModels ? { listModels: (o?: ListOptions) => chat.listModels!(o) } : {}),
  };
}
