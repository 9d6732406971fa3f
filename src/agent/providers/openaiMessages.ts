// The agent's messages and tools in the chat-completions shape, and the
// reassembly of streamed chat-completion chunks into StreamParts. Pure
// functions over plain data: the `openai` package is only a transport.
import type { ChatMessage, StreamPart, ToolCall, ToolSpec, Usage } from "./types.js";

export interface OpenAIToolCallJson {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIMessageJson =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCallJson[] }
  | { role: "tool"; tool_call_id: string; content: string };

export function toOpenAIMessages(messages: ChatMessage[]): OpenAIMessageJson[] {
  return messages.map((m): OpenAIMessageJson => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant": {
        // Reasoning is not sent back: servers that produce it (DeepSeek, vLLM) reject or ignore it as input.
        const calls = m.toolCalls ?? [];
        if (!calls.length) return { role: "assistant", content: m.content };
        return {
          role: "assistant",
          content: m.content === "" ? null : m.content,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments || "{}" } })),
        };
      }
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
    }
  });
}

export function toOpenAITools(tools: ToolSpec[]) {
  return tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** The fields of a streamed chunk this module reads (servers add others). */
export interface OpenAIChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      /** vLLM, llama.cpp, DeepSeek, LM Studio. */
      reasoning_content?: string | null;
      /** Ollama, OpenRouter. */
      reasoning?: string | null;
      tool_calls?: Array<{ index?: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } }> | null;
    };
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
}

type FinishReason = Extract<StreamPart, { type: "finish" }>["reason"];

function finishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "content_filter":
      return reason;
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      return "other";
  }
}

export function usageFrom(u: NonNullable<OpenAIChunk["usage"]>): Usage {
  const usage: Usage = { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0 };
  if (u.prompt_tokens_details?.cached_tokens) usage.cachedInputTokens = u.prompt_tokens_details.cached_tokens;
  if (u.completion_tokens_details?.reasoning_tokens) usage.reasoningTokens = u.completion_tokens_details.reasoning_tokens;
  return usage;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Turns chat-completion chunks into StreamParts. Text and reasoning pass through
 * at once; tool calls are collected by `index` from their fragments and handed
 * out whole when the answer finishes; usage and finish come last.
 */
export class OpenAIChunkAssembler {
  private calls: PendingCall[] = [];
  /** index in the server's numbering → position in `calls`. */
  private byIndex = new Map<number, number>();
  private finish: string | undefined;
  private usage: Usage | undefined;
  private generatedIds = 0;

  /** The parts a chunk completes (text and reasoning deltas; everything else waits for end()). */
  push(chunk: OpenAIChunk): StreamPart[] {
    const parts: StreamPart[] = [];
    if (chunk.usage) this.usage = usageFrom(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (reasoning) parts.push({ type: "reasoning", delta: reasoning });
      if (d.content) parts.push({ type: "text", delta: d.content });
      for (const frag of d.tool_calls ?? []) this.addFragment(frag);
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    return parts;
  }

  private addFragment(frag: NonNullable<NonNullable<NonNullable<OpenAIChunk["choices"]>[number]["delta"]>["tool_calls"]>[number]) {
    const index = frag.index ?? this.calls.length;
    let at = this.byIndex.get(index);
    // Some servers number every call 0 and send each one whole: a new id at a known
    // index is a new call, not more of the old one.
    if (at !== undefined && frag.id && this.calls[at].id && frag.id !== this.calls[at].id) at = undefined;
    if (at === undefined) {
      at = this.calls.length;
      this.calls.push({ id: frag.id ?? "", name: "", arguments: "" });
      this.byIndex.set(index, at);
    }
    const call = this.calls[at];
    if (frag.id && !call.id) call.id = frag.id;
    if (frag.function?.name) call.name += frag.function.name;
    if (frag.function?.arguments) call.arguments += frag.function.arguments;
  }

  /** Whether the server said the answer is complete (a finish_reason arrived). */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** The parts that wait for the end: complete tool calls, usage, finish. */
  end(): StreamPart[] {
    const parts: StreamPart[] = [];
    const calls: ToolCall[] = this.calls
      .filter((c) => c.name !== "")
      .map((c) => ({ id: c.id || `call_rt_${++this.generatedIds}`, name: c.name, arguments: c.arguments }));
    for (const call of calls) parts.push({ type: "tool_call", call });
    if (this.usage) parts.push({ type: "usage", usage: this.usage });
    // Some servers (Ollama among them) say "stop" after tool calls; the agent needs to know there are
    // calls to run. "length" stays: the last call's arguments may be cut short.
    const said = finishReason(this.finish ?? "stop");
    const reason = calls.length && said !== "length" ? "tool_calls" : said;
    parts.push({ type: "finish", reason });
    return parts;
  }
}
