// The provider interface: what the agent loop needs from a model API, and
// nothing more. Each provider (OpenAI-compatible chat completions, OpenAI,
// Anthropic Messages, Ollama's native chat) turns a ModelRequest into a stream of StreamParts.

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (JSON text, possibly invalid). */
  arguments: string;
}

/**
 * How a model turn ended, the same words for every provider:
 *   stop            the model finished its answer
 *   tool_calls      it stopped to call tools
 *   length          cut at the output limit (OpenAI "length", Anthropic "max_tokens" and
 *                   "model_context_window_exceeded", Ollama "length")
 *   refusal         the model declined (Anthropic "refusal"; an OpenAI `refusal` delta)
 *   content_filter  the provider's filter stopped it (OpenAI/Azure "content_filter")
 *   other           anything else the provider said (kept verbatim as the raw reason)
 *   error           (rt's word, never a provider's) the stream failed or was interrupted
 *                   before the model finished: the answer is incomplete
 */
export type FinishReason = "stop" | "tool_calls" | "length" | "refusal" | "content_filter" | "other" | "error";

/**
 * What a provider needs back exactly as it sent it, when the assistant message is
 * part of a later request. Opaque to the agent; each provider reads its own part.
 */
export interface NativeParts {
  /**
   * Anthropic: the content blocks of the answer in the order they arrived: `thinking`
   * (with its signature; the text may be empty), `redacted_thinking` (its `data`),
   * `text`, `tool_use`, and any other block verbatim. Thinking and redacted thinking
   * go back unchanged and in this order; unknown blocks stay in the session only.
   */
  anthropic?: Array<Record<string, unknown>>;
  /**
   * Chat completions: the delta field the reasoning arrived in ("reasoning_content":
   * DeepSeek, vLLM, llama.cpp, Z.ai; "reasoning": OpenRouter, Groq, Ollama's /v1). It
   * goes back in the same field on assistant messages with tool calls (and the others of
   * their user turn), which DeepSeek's thinking mode requires.
   */
  reasoningField?: "reasoning_content" | "reasoning";
  /**
   * OpenAI Responses: the answer's reasoning items (id, summary, encrypted_content), sent back
   * verbatim in later requests (rt asks with `store: false`, so OpenAI keeps nothing itself).
   */
  responses?: Array<Record<string, unknown>>;
  /** OpenRouter's `reasoning_details`, merged over the stream by index, sent back unchanged. */
  reasoningDetails?: Array<Record<string, unknown>>;
  /** Content parts of a type rt does not know, verbatim: kept in the session, never made into text. */
  unknownParts?: unknown[];
  /**
   * Chat completions: a tool call's `extra_content`, by call id, verbatim. Gemini's
   * OpenAI-compatible endpoint puts the call's thought signature there
   * ({google: {thought_signature}}) and answers 400 ("Function call is missing a
   * thought_signature") when the call comes back without it.
   */
  toolCallExtras?: Record<string, unknown>;
}

/**
 * An image in a message (a tool's result: read of an image or of a PDF's pages),
 * already within the provider's limits. Each provider sends it in its own shape
 * (openaiMessages.ts, anthropicMessages.ts, ollamaMessages.ts). Kept inline in
 * the session log, base64 (see session.ts).
 */
export interface ChatImage {
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** The image bytes, base64. */
  data: string;
  width: number;
  height: number;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | {
      role: "user";
      content: string;
      images?: ChatImage[];
      /**
       * Sent with this request only (a reminder): not part of the prefix a later request repeats,
       * so a provider places no cache breakpoint on it.
       */
      ephemeral?: boolean;
    }
  | {
      role: "assistant";
      content: string;
      reasoning?: string;
      /**
       * Anthropic's signature of the thinking in `reasoning`, from sessions written
       * before `native.anthropic` kept every block (read, no longer written).
       */
      reasoningSignature?: string;
      toolCalls?: ToolCall[];
      /** How the model turn that wrote this message ended (absent in older sessions). */
      finish?: FinishReason;
      /** The provider's own word for it, when it differs ("max_tokens", "end_turn"...). */
      finishRaw?: string;
      native?: NativeParts;
    }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean; images?: ChatImage[] };

export type ToolChoice = "auto" | "required" | "none";

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  /** Absent or empty: no native tools (text mode). */
  tools?: ToolSpec[];
  /**
   * Whether the model may answer (auto, the default), must call a tool (required) or
   * may not call one (none). Anthropic sends tool_choice {type: auto|any|none}, chat
   * completions tool_choice "auto"|"required"|"none", `local` constrains its grammar.
   */
  toolChoice?: ToolChoice;
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * The context window the caller budgets for, in tokens. Ollama sends it as
   * `options.num_ctx` (absent: the provider's own contextWindow()); the others
   * ignore it, as their servers size the context themselves.
   */
  contextWindow?: number;
  /**
   * Prompt caching (absent: none asked for). Anthropic marks cache breakpoints with this
   * time to live; OpenAI sends `key` as prompt_cache_key, so one session's requests reach
   * the same cache.
   */
  cache?: PromptCache;
  signal?: AbortSignal;
}

export interface PromptCache {
  /** Anthropic's cache_control ttl: "5m" (the API's default) or "1h" (writes cost more, reads last longer). */
  ttl: "5m" | "1h";
  /** A stable key per session (OpenAI's prompt_cache_key). */
  key?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from a prompt cache, when the provider says. */
  cachedInputTokens?: number;
  /** Input tokens written to a prompt cache (Anthropic's cache_creation_input_tokens; part of inputTokens). */
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/**
 * What a provider yields, in order: text and reasoning deltas as they arrive,
 * `usage` whenever the server reports (more of) it (the latest counts, not an
 * increment), each tool call once complete, `native` parts to keep, then
 * `finish`, always last. A stream that fails throws a ProviderError after
 * yielding everything that had arrived, usage included.
 */
export type StreamPart =
  | { type: "text"; delta: string }
  /** `signature` (Anthropic): arrives once at the end of a thinking block, with an empty delta. */
  | { type: "reasoning"; delta: string; signature?: string }
  /** A complete tool call, emitted once all of its argument fragments have arrived. */
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  /** Provider-native pieces of the answer to keep with the assistant message (replaces what an earlier `native` part said). */
  | { type: "native"; native: NativeParts }
  /** `raw`: the provider's own word; `detail`: its explanation, when it gives one (Anthropic's refusal stop_details). */
  | { type: "finish"; reason: FinishReason; raw?: string; detail?: string };

export type ProviderErrorKind =
  /** Nothing listens at the base URL (connection refused, DNS failure). */
  | "unreachable"
  | "auth"
  | "rate_limit"
  | "server"
  | "bad_request"
  /** The model or server rejects native tool calls (text mode may work). */
  | "tools_unsupported"
  | "model_not_found"
  /** The stream broke after it started: what arrived before is still valid. */
  | "stream_broken"
  /** The server sent nothing for too long, before the answer or in the middle of it (see retry.ts). */
  | "timeout"
  /** An error inside the stream that says nothing rt recognizes as transient (not retried). */
  | "stream_error"
  | "aborted";

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly status?: number,
    /** rate_limit: how long the server asked to wait (Retry-After), in milliseconds. */
    readonly retryAfterMs?: number,
    /** What the provider's error said (message, type, param), when it came from the provider. */
    readonly details?: { message: string; status?: number; type?: string; param?: string },
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

export interface Provider {
  /** "openai-compatible", "openai", "openai-responses", "anthropic", "ollama". */
  readonly name: string;
  /** Streams one model turn. Retries (429, 5xx, network errors before the first part) happen inside. */
  stream(req: ModelRequest): AsyncIterable<StreamPart>;
  /** The model's context window in tokens, when the provider can tell. */
  contextWindow?(model: string): Promise<number | undefined>;
  /**
   * Whether the model takes images: the configuration (`providers.<name>.vision`),
   * else what the server says (Ollama's /api/show capabilities) or what rt knows
   * of the model; undefined when nobody can tell.
   */
  vision?(model: string): Promise<boolean | undefined>;
  /** The models the server offers (Ollama: the pulled ones). Throws a ProviderError when it cannot be asked. */
  listModels?(opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<string[]>;
}
