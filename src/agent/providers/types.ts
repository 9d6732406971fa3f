// The provider interface: what the agent loop needs from a model API, and
// nothing more. Each provider (OpenAI-compatible chat completions, OpenAI,
// Anthropic Messages, Ollama's native chat) turns a ModelRequest into a stream of StreamParts.

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (JSON text, possibly invalid). */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string;
      reasoning?: string;
      /**
       * Anthropic's signature of the thinking in `reasoning` (the `signature` of the
       * reasoning parts). With extended thinking and tool use, Anthropic requires the
       * thinking of the assistant turn being continued to come back signed; without a
       * signature the thinking is not sent back at all. Other providers ignore it.
       */
      reasoningSignature?: string;
      toolCalls?: ToolCall[];
    }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

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
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * The context window the caller budgets for, in tokens. Ollama sends it as
   * `options.num_ctx` (absent: the provider's own contextWindow()); the others
   * ignore it, as their servers size the context themselves.
   */
  contextWindow?: number;
  signal?: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from a prompt cache, when the provider says. */
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/**
 * What a provider yields, in order: text and reasoning deltas as they arrive,
 * each tool call once complete, then `usage` (when the server reports it),
 * then `finish`, always last. A stream that fails throws a ProviderError
 * after yielding everything that had arrived.
 */
export type StreamPart =
  | { type: "text"; delta: string }
  /** `signature` (Anthropic): arrives once at the end of a thinking block, with an empty delta; keep it in the assistant message. */
  | { type: "reasoning"; delta: string; signature?: string }
  /** A complete tool call, emitted once all of its argument fragments have arrived. */
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: "stop" | "tool_calls" | "length" | "content_filter" | "other" };

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
  | "aborted";

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly status?: number,
    /** rate_limit: how long the server asked to wait (Retry-After), in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

export interface Provider {
  /** "openai-compatible", "openai", "anthropic", "ollama". */
  readonly name: string;
  /** Streams one model turn. Retries (429, 5xx, network errors before the first part) happen inside. */
  stream(req: ModelRequest): AsyncIterable<StreamPart>;
  /** The model's context window in tokens, when the provider can tell. */
  contextWindow?(model: string): Promise<number | undefined>;
  /** The models the server offers (Ollama: the pulled ones). Throws a ProviderError when it cannot be asked. */
  listModels?(opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<string[]>;
}
