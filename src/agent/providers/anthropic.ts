// Anthropic's Messages API, streamed, with tool_use and thinking blocks.
//
// Why the official `@anthropic-ai/sdk`: it is the reference client of the API
// (SSE framing, error classes, headers) and yields the raw stream events, which
// rt reassembles itself (anthropicMessages.ts); retries and timeouts are rt's
// own (retry.ts), so the client's are off. Loaded with import() on first use.
import { ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS, PROVIDER_PROBE_TIMEOUT_MS } from "../../limits.js";
import { AnthropicEventAssembler, toAnthropicMessages, toAnthropicTools, type AnthropicEvent } from "./anthropicMessages.js";
import { contextWindowFor } from "./contextWindow.js";
import { listModelsError, missingPackage } from "./errors.js";
import type { ProviderOptions } from "./options.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, streamTurn } from "./retry.js";
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

export function createAnthropicProvider(opts: AnthropicOptions): Provider {
  const baseURL = opts.baseURL.replace(/\/+$/, "");
  const target = opts.target ?? baseURL;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  let client: Promise<AnthropicClient> | undefined;

  const getClient = () =>
    (client ??= import("@anthropic-ai/sdk").then(
      ({ Anthropic }): AnthropicClient =>
        new Anthropic({
          // Always explicit, so the client never goes looking for credentials of its own
          // (environment, profile files): rt's resolution decided which key to use.
          apiKey: opts.apiKey || "no-key",
          authToken: null,
          baseURL,
          maxRetries: 0,
          timeout: timeouts.firstPartMs + 1_000,
          defaultHeaders: opts.headers,
        }),
      (err: unknown) => {
        client = undefined;
        throw missingPackage("@anthropic-ai/sdk", err);
      },
    ));

  function body(req: ModelRequest) {
    const { system, messages } = toAnthropicMessages(req.messages);
    const budget = opts.thinkingBudgetTokens;
    let maxTokens = req.maxOutputTokens ?? opts.defaultMaxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
    // The API wants max_tokens above the thinking budget, and no temperature but 1 with thinking on.
    if (budget) maxTokens = Math.max(maxTokens, budget + 1024);
    return {
      model: req.model,
      max_tokens: maxTokens,
      messages,
      stream: true as const,
      ...(system !== undefined ? { system } : {}),
      ...(req.tools?.length ? { tools: toAnthropicTools(req.tools) } : {}),
      ...(req.temperature !== undefined && !budget ? { temperature: req.temperature } : {}),
      ...(budget ? { thinking: { type: "enabled", budget_tokens: budget } } : {}),
    };
  }

  async function* attempt(req: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const c = await getClient();
    const stream = await c.messages.create(body(req) as unknown as Parameters<AnthropicClient["messages"]["create"]>[0] & { stream: true }, { signal });
    const assembler = new AnthropicEventAssembler();
    for await (const event of stream as AsyncIterable<unknown>) {
      alive();
      yield* assembler.push(event as AnthropicEvent);
    }
    if (signal.aborted) return; // runWithRetries says why
    if (!assembler.finished) throw new ProviderError(`the stream from ${target} ended before the answer was complete (no message_stop)`, "stream_broken");
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
    async listModels(o = {}) {
      try {
        const c = await getClient();
        const page = await c.models.list({}, { signal: o.signal, timeout: o.timeoutMs ?? PROVIDER_PROBE_TIMEOUT_MS, maxRetries: 0 });
        return page.data.map((m) => m.id);
      } catch (err) {
        throw listModelsError(err, target, o.signal);
      }
    },
  };
}
