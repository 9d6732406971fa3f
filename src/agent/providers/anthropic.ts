// Anthropic's Messages API, streamed, with tool_use and thinking blocks.
//
// Why the official `@anthropic-ai/sdk`: it is the reference client of the API
// (request building, error classes, the anthropic-version header); rt reads the
// event stream itself (sse.ts, anthropicMessages.ts), since what an error event
// says decides whether it is retried; retries and timeouts are rt's own
// (retry.ts), so the client's are off. Loaded with import() on first use.
//
// The key. Anthropic's API reference (platform.claude.com/docs/en/api/overview,
// .../api/authentication/overview) puts an API key in the `x-api-key` header;
// `Authorization: Bearer` carries a short-lived Workload Identity Federation
// token. The pinned client (1.x) sends a key as `Authorization: Bearer`, so rt
// sets `x-api-key` itself and removes the Authorization header (the client's
// documented way: a hand-set X-Api-Key with Authorization omitted).
//
// Sampling. @anthropic-ai/sdk 1.x sends `anthropic-version: 2026-10-21`, the API
// version that removed temperature, top_p and top_k (any value is a 400), so no
// temperature is ever sent (sampling.ts).
import { ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS, PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";
import {
  AnthropicEventAssembler,
  placeCacheBreakpoints,
  toAnthropicMessages,
  toAnthropicTools,
  wholeMessageEvents,
  type AnthropicEvent,
} from "./anthropicMessages.js";
import { contextWindowFor } from "./contextWindow.js";
import { configuredVision, knownVision } from "./vision.js";
import { listModelsError, missingPackage } from "./errors.js";
import { withoutEnv, type ProviderOptions } from "./options.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, streamTurn } from "./retry.js";
import { sseEvents, wholeJsonBody } from "./sse.js";
import { ProviderError, type ModelRequest, type Provider, type StreamPart } from "./types.js";

export interface AnthropicOptions extends ProviderOptions {
  /** Extended thinking: the token budget for it (absent: no thinking requested). */
  thinkingBudgetTokens?: number;
  /** max_tokens when the request sets none (the API requires one). */
  defaultMaxOutputTokens?: number;
  /** Configured context windows by model name; they win over the table of known models. */
  contextWindows?: Record<string, number>;
}

type AnthropicClient = import("@anthropic-ai/sdk").Anthropic;

/** Environment variables through which the client would pick credentials or headers of its own. */
const ANTHROPIC_CLIENT_ENV = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_CUSTOM_HEADERS",
  "ANTHROPIC_BASE_URL",
];

export function createAnthropicProvider(opts: AnthropicOptions): Provider {
  const baseURL = opts.baseURL.replace(/\/+$/, "");
  const target = opts.target ?? baseURL;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  let client: Promise<AnthropicClient> | undefined;

  const getClient = () =>
    (client ??= import("@anthropic-ai/sdk").then(
      ({ Anthropic }): AnthropicClient =>
        withoutEnv(
          ANTHROPIC_CLIENT_ENV,
          () =>
            new Anthropic({
              // Always explicit, so the client never goes looking for credentials of its own
              // (environment, profile files): rt's resolution decided which key to use.
              apiKey: opts.apiKey || "no-key",
              baseURL,
              maxRetries: 0,
              timeout: timeouts.firstPartMs + 1_000,
              // The key in x-api-key (see the top of this file); none at all without a key.
              defaultHeaders: {
                ...opts.headers,
                Authorization: null,
                ...(opts.apiKey ? { "X-Api-Key": opts.apiKey } : {}),
              },
            }),
        ),
      (err: unknown) => {
        client = undefined;
        throw missingPackage("@anthropic-ai/sdk", err);
      },
    ));

  function body(req: ModelRequest) {
    const { system, messages, ephemeral } = toAnthropicMessages(req.messages);
    const tools = req.tools?.length ? toAnthropicTools(req.tools) : undefined;
    // Prompt caching: cache_control markers on the tools, the system prompt and the newest user messages.
    const cached = req.cache
      ? placeCacheBreakpoints(
          { ...(system !== undefined ? { system } : {}), messages, ephemeral, ...(tools ? { tools } : {}) },
          req.cache.ttl,
        )
      : {};
    const budget = opts.thinkingBudgetTokens;
    let maxTokens = req.maxOutputTokens ?? opts.defaultMaxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
    // The API wants max_tokens above the thinking budget.
    if (budget) maxTokens = Math.max(maxTokens, budget + 1024);
    return {
      model: req.model,
      max_tokens: maxTokens,
      messages,
      stream: true as const,
      ...(cached.system ? { system: cached.system } : system !== undefined ? { system } : {}),
      ...(tools ? { tools } : {}),
      // tool_choice: auto / any (a tool must be called) / none. The API refuses a forced tool with thinking on.
      ...(tools && req.toolChoice
        ? { tool_choice: { type: req.toolChoice === "required" ? "any" : req.toolChoice } }
        : {}),
      ...(budget && !(tools && req.toolChoice === "required")
        ? { thinking: { type: "enabled", budget_tokens: budget } }
        : {}),
    };
  }

  async function* attempt(req: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const c = await getClient();
    const res = await c.messages
      .create(body(req) as unknown as Parameters<AnthropicClient["messages"]["create"]>[0] & { stream: true }, {
        signal,
      })
      .asResponse();
    if (!res.body) throw new ProviderError(`${target} answered ${res.status} without a body`, "stream_broken");
    const assembler = new AnthropicEventAssembler();
    const whole = await wholeJsonBody(res, alive);
    if (whole && "json" in whole) {
      // The whole message at once (a proxy that ignores stream: true): complete, so it is the answer, not a broken stream.
      const doc = whole.json as { type?: string } | null;
      if (doc && typeof doc === "object" && doc.type === "error") throw { error: doc };
      const events = wholeMessageEvents(doc);
      if (!events) {
        throw new ProviderError(
          `${target} answered the streaming request with JSON that is neither an event stream nor a message: ${JSON.stringify(doc).slice(0, 200)}`,
          "stream_error",
        );
      }
      for (const event of events) yield* assembler.push(event);
      yield* assembler.end();
      return;
    }
    for await (const ev of sseEvents(whole?.events ?? res.body, alive)) {
      let event: AnthropicEvent;
      try {
        event = JSON.parse(ev.data) as AnthropicEvent;
      } catch {
        throw new ProviderError(
          `the stream from ${target} broke: an event is not JSON (${ev.data.slice(0, 120)})`,
          "stream_broken",
        );
      }
      if (ev.event === "error" || event.type === "error") {
        yield* assembler.partial();
        throw { error: event };
      }
      yield* assembler.push(event);
      if (assembler.finished) break;
    }
    if (signal.aborted) return; // runWithRetries says why
    if (!assembler.finished) {
      yield* assembler.partial();
      throw new ProviderError(
        `the stream from ${target} ended before the answer was complete (no message_stop)`,
        "stream_broken",
      );
    }
    yield* assembler.end();
  }

  return {
    name: "anthropic",
    stream(req: ModelRequest): AsyncIterable<StreamPart> {
      return streamTurn(req, { target, retry, timeouts }, attempt);
    },
    async contextWindow(model: string) {
      return opts.contextWindows?.[model] ?? contextWindowFor({ name: "anthropic", baseURL }, model);
    },
    async vision(model: string) {
      // Every Claude model since Claude 3 reads images; a proxy serving other models says so in the configuration.
      return configuredVision(opts.vision, model) ?? knownVision(model) ?? true;
    },
    async listModels(o = {}) {
      try {
        const c = await getClient();
        const page = await c.models.list(
          {},
          { signal: o.signal, timeout: o.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS, maxRetries: 0 },
        );
        return page.data.map((m) => m.id);
      } catch (err) {
        throw listModelsError(err, target, o.signal);
      }
    },
  };
}
