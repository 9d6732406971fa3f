// The agent's messages in the shape of Anthropic's Messages API, and the
// reassembly of its stream events into StreamParts. Pure functions over plain
// data: `@anthropic-ai/sdk` is only the transport.
import type { ChatMessage, StreamPart, ToolSpec, Usage } from "./types.js";

export type AnthropicBlockJson =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessageJson {
  role: "user" | "assistant";
  content: AnthropicBlockJson[];
}

/** The tool input object of a call whose arguments may not be valid JSON (the model's mistake was reported to it already). */
function toolInput(args: string): unknown {
  try {
    const v = JSON.parse(args || "{}");
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Anthropic rejects empty text blocks. */
const nonEmpty = (text: string) => (text === "" ? "(empty)" : text);

/**
 * Leading system messages become the `system` parameter; a later one (a summary
 * after compaction...) stays where it is, as user text, since the API has no
 * system role inside the conversation. Consecutive messages of one role are
 * merged (tool results and the next user text form one user message), as the
 * API wants the roles to alternate.
 */
export function toAnthropicMessages(messages: ChatMessage[]): { system?: string; messages: AnthropicMessageJson[] } {
  const system: string[] = [];
  const out: AnthropicMessageJson[] = [];
  const add = (role: "user" | "assistant", blocks: AnthropicBlockJson[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        if (out.length === 0) system.push(m.content);
        else add("user", [{ type: "text", text: `<system>\n${m.content}\n</system>` }]);
        break;
      case "user":
        add("user", [{ type: "text", text: nonEmpty(m.content) }]);
        break;
      case "assistant": {
        const blocks: AnthropicBlockJson[] = [];
        // Thinking goes back only signed: the API rejects unsigned thinking blocks.
        if (m.reasoning && m.reasoningSignature) blocks.push({ type: "thinking", thinking: m.reasoning, signature: m.reasoningSignature });
        if (m.content) blocks.push({ type: "text", text: m.content });
        for (const c of m.toolCalls ?? []) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: toolInput(c.arguments) });
        add("assistant", blocks);
        break;
      }
      case "tool":
        add("user", [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) }]);
        break;
    }
  }
  // The API wants the conversation to open with the user (a history cut by compaction may not).
  if (out[0]?.role === "assistant") out.unshift({ role: "user", content: [{ type: "text", text: "(continued)" }] });
  return { ...(system.length ? { system: system.join("\n\n") } : {}), messages: out };
}

export function toAnthropicTools(tools: ToolSpec[]) {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/** The fields of the stream events this module reads. */
export interface AnthropicEvent {
  type: string;
  index?: number;
  message?: { usage?: AnthropicUsage };
  content_block?: { type: string; id?: string; name?: string; text?: string; thinking?: string };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
}

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

type FinishReason = Extract<StreamPart, { type: "finish" }>["reason"];

function finishReason(stop: string | undefined): FinishReason {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case undefined:
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

interface OpenBlock {
  type: string;
  id?: string;
  name?: string;
  json: string;
  signature?: string;
}

/**
 * Turns Messages stream events into StreamParts: text and thinking deltas at
 * once, a tool call when its block closes (all input_json_delta fragments in),
 * the thinking signature when its block closes, usage and finish at the end.
 */
export class AnthropicEventAssembler {
  private blocks = new Map<number, OpenBlock>();
  private input = 0;
  private cached = 0;
  private output = 0;
  private sawUsage = false;
  private stop: string | undefined;
  /** message_stop arrived: the answer is complete. */
  finished = false;

  push(ev: AnthropicEvent): StreamPart[] {
    switch (ev.type) {
      case "message_start":
        this.addUsage(ev.message?.usage);
        return [];
      case "content_block_start": {
        const b = ev.content_block ?? { type: "unknown" };
        this.blocks.set(ev.index ?? 0, { type: b.type, id: b.id, name: b.name, json: "" });
        if (b.type === "text" && b.text) return [{ type: "text", delta: b.text }];
        if (b.type === "thinking" && b.thinking) return [{ type: "reasoning", delta: b.thinking }];
        return [];
      }
      case "content_block_delta": {
        const d = ev.delta ?? {};
        const block = this.blocks.get(ev.index ?? 0);
        if (d.type === "text_delta" && d.text) return [{ type: "text", delta: d.text }];
        if (d.type === "thinking_delta" && d.thinking) return [{ type: "reasoning", delta: d.thinking }];
        if (d.type === "signature_delta" && block) block.signature = (block.signature ?? "") + (d.signature ?? "");
        if (d.type === "input_json_delta" && block) block.json += d.partial_json ?? "";
        return [];
      }
      case "content_block_stop": {
        const block = this.blocks.get(ev.index ?? 0);
        this.blocks.delete(ev.index ?? 0);
        if (block?.type === "tool_use") {
          return [{ type: "tool_call", call: { id: block.id ?? `toolu_rt_${ev.index ?? 0}`, name: block.name ?? "", arguments: block.json || "{}" } }];
        }
        if (block?.type === "thinking" && block.signature) return [{ type: "reasoning", delta: "", signature: block.signature }];
        return [];
      }
      case "message_delta":
        if (ev.delta?.stop_reason) this.stop = ev.delta.stop_reason;
        this.addUsage(ev.usage);
        return [];
      case "message_stop":
        this.finished = true;
        return [];
      default:
        return [];
    }
  }

  /** message_start carries the input side; message_delta the (cumulative) output side and sometimes updated input. */
  private addUsage(u: AnthropicUsage | undefined) {
    if (!u) return;
    this.sawUsage = true;
    if (u.input_tokens != null || u.cache_read_input_tokens != null || u.cache_creation_input_tokens != null) {
      // Anthropic counts cached and cache-written tokens apart from input_tokens; the agent wants the whole prompt.
      this.input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      this.cached = u.cache_read_input_tokens ?? 0;
    }
    if (u.output_tokens != null) this.output = u.output_tokens;
  }

  end(): StreamPart[] {
    const parts: StreamPart[] = [];
    if (this.sawUsage) {
      const usage: Usage = { inputTokens: this.input, outputTokens: this.output };
      if (this.cached) usage.cachedInputTokens = this.cached;
      parts.push({ type: "usage", usage });
    }
    parts.push({ type: "finish", reason: finishReason(this.stop) });
    return parts;
  }
}
