// The agent's messages and tools in the shape of Ollama's native chat API
// (POST /api/chat), and the reassembly of its NDJSON stream into StreamParts.
// Pure functions over plain data; ollama.ts does the HTTP.
//
// Wire format, in short:
//   request   {model, messages, tools?, stream: true, options: {num_ctx, temperature?, num_predict?},
//             think?: true | false | "low" | "medium" | "high" | "max"}
//   messages  {role: "system" | "user" | "assistant" | "tool", content, thinking?,
//              tool_calls?: [{id?, function: {name, arguments: OBJECT}}], tool_name?, tool_call_id?}
//   stream    one JSON object a line: {message: {role, content, thinking?, tool_calls?}, done: false} ...
//             then {done: true, done_reason, prompt_eval_count, eval_count}; or {error: "..."} at any point.
// Tool-call arguments are JSON objects (not text), and tool calls carry no id
// before Ollama 0.12.10: rt makes one up when there is none.
import type { ChatMessage, FinishReason, StreamPart, ToolCall, ToolSpec, Usage } from "./types.js";

export interface OllamaToolCallJson {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

/** `images`: base64 images (no data-URL prefix), on any message; the model's template places them. */
export type OllamaMessageJson =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: string[] }
  | { role: "assistant"; content: string; thinking?: string; tool_calls?: OllamaToolCallJson[] }
  | { role: "tool"; content: string; tool_name: string; tool_call_id?: string; images?: string[] };

/** Arguments as Ollama wants them: an object. Text that is not a JSON object (a model's broken output) becomes {}. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function toOllamaMessages(messages: ChatMessage[]): OllamaMessageJson[] {
  return messages.map((m): OllamaMessageJson => {
    switch (m.role) {
      case "system":
        return { role: m.role, content: m.content };
      case "user":
        return {
          role: m.role,
          content: m.content,
          ...(m.images?.length ? { images: m.images.map((img) => img.data) } : {}),
        };
      case "assistant": {
        // Thinking goes back as Ollama's own `thinking` field: the chat templates of thinking
        // models decide what to do with it (most drop it from earlier turns).
        const out: OllamaMessageJson = { role: "assistant", content: m.content };
        if (m.reasoning) out.thinking = m.reasoning;
        const calls = m.toolCalls ?? [];
        if (calls.length)
          out.tool_calls = calls.map((c) => ({
            id: c.id,
            function: { name: c.name, arguments: argumentsObject(c.arguments) },
          }));
        return out;
      }
      case "tool":
        // Ollama matches results to calls by tool name (and, from 0.12.10, by id; older versions ignore the field).
        return {
          role: "tool",
          content: m.content,
          tool_name: m.name,
          tool_call_id: m.toolCallId,
          ...(m.images?.length ? { images: m.images.map((img) => img.data) } : {}),
        };
    }
  });
}

export function toOllamaTools(tools: ToolSpec[]) {
  return tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** The fields of a streamed line this module reads (Ollama adds others: model, created_at, durations). */
export interface OllamaChunk {
  message?: {
    role?: string;
    content?: string | null;
    thinking?: string | null;
    tool_calls?: Array<{
      id?: string | null;
      function?: { name?: string | null; arguments?: unknown; index?: number };
    }> | null;
  } | null;
  done?: boolean;
  done_reason?: string | null;
  /** The whole prompt, cached part included (Ollama's own CLI and OpenAI bridge read it so). */
  prompt_eval_count?: number | null;
  /** Of which read from the KV cache (recent Ollama versions). */
  prompt_eval_cached_count?: number | null;
  eval_count?: number | null;
  error?: unknown;
}

function finishReason(reason: string | null | undefined, calls: number): FinishReason {
  const said: FinishReason = !reason || reason === "stop" ? "stop" : reason === "length" ? "length" : "other";
  // "length" stays: the output was cut, whatever it holds (a thinking model may have spent it all thinking).
  return calls > 0 && said !== "length" ? "tool_calls" : said;
}

let streams = 0;

/**
 * Turns the lines of an /api/chat stream into StreamParts. Text and reasoning pass
 * through at once; tool calls (which Ollama sends whole, arguments parsed) are
 * handed out as they arrive; usage and finish come from the `done` line.
 */
export class OllamaChunkAssembler {
  private calls = 0;
  private done: OllamaChunk | undefined;
  /** Distinguishes the made-up ids of this answer from those of every other answer in the process. */
  private readonly idPrefix =
    `call_${Date.now().toString(36)}${(++streams).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  /** The parts a line completes. An `error` line is the caller's to throw (see ollama.ts). */
  push(chunk: OllamaChunk): StreamPart[] {
    const parts: StreamPart[] = [];
    const m = chunk.message ?? {};
    if (m.thinking) parts.push({ type: "reasoning", delta: m.thinking });
    if (m.content) parts.push({ type: "text", delta: m.content });
    for (const c of m.tool_calls ?? []) {
      const name = c.function?.name;
      if (!name) continue;
      const args = c.function?.arguments;
      const call: ToolCall = {
        id: c.id || `${this.idPrefix}_${this.calls}`,
        name,
        // Objects (Ollama parses them); a string is passed on as the model's own text.
        arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      };
      this.calls++;
      parts.push({ type: "tool_call", call });
    }
    if (chunk.done && (chunk.done_reason === "load" || chunk.done_reason === "unload")) {
      // Model housekeeping, not the end of an answer: Ollama says "load" when it loaded the model
      // for a request without messages and generated nothing, "unload" when it unloaded it.
      this.housekeeping = chunk.done_reason;
    } else if (chunk.done) this.done = chunk;
    return parts;
  }

  /** A `done` line that only said the model was loaded or unloaded ("load", "unload"), when one came. */
  housekeeping: string | undefined;

  /** Whether the `done` line arrived. */
  get finished(): boolean {
    return this.done !== undefined;
  }

  /** Usage (when reported) and finish, from the `done` line. */
  end(): StreamPart[] {
    const parts: StreamPart[] = [];
    const d = this.done ?? {};
    if (typeof d.prompt_eval_count === "number" || typeof d.eval_count === "number") {
      const usage: Usage = { inputTokens: d.prompt_eval_count ?? 0, outputTokens: d.eval_count ?? 0 };
      if (typeof d.prompt_eval_cached_count === "number" && d.prompt_eval_cached_count > 0)
        usage.cachedInputTokens = d.prompt_eval_cached_count;
      parts.push({ type: "usage", usage });
    }
    parts.push({
      type: "finish",
      reason: finishReason(d.done_reason, this.calls),
      ...(d.done_reason ? { raw: d.done_reason } : {}),
    });
    return parts;
  }
}
