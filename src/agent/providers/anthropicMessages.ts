// The agent's messages in the shape of Anthropic's Messages API, and the
// reassembly of its stream events into StreamParts. Pure functions over plain
// data: `@anthropic-ai/sdk` is only the transport.
//
// Thinking round-trip. With extended thinking and tool use, the API requires the
// assistant turn being continued to come back with its `thinking` and
// `redacted_thinking` blocks exactly as they were sent, in their order: a
// thinking block keeps its signature even when its text is empty (models that
// omit the thinking text send only the signature), and a redacted block keeps
// its opaque `data`. Otherwise the API answers 400 ("Expected `thinking` or
// `redacted_thinking`, but found `tool_use`", or "blocks ... cannot be
// modified"). So the assembler keeps every block of the answer in order
// (NativeParts.anthropic), and toAnthropicMessages sends them back unchanged.
import type {
  ChatImage,
  ChatMessage,
  FinishReason,
  NativeParts,
  StreamPart,
  ToolCall,
  ToolSpec,
  Usage,
} from "./types.js";

export type AnthropicBlockJson =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "image"; source: { type: "base64"; media_type: ChatImage["mediaType"]; data: string } }
  | { type: "tool_result"; tool_use_id: string; content: string | AnthropicToolResultPartJson[]; is_error?: boolean };

/** What a tool_result's content holds: text and image blocks. */
export type AnthropicToolResultPartJson =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: ChatImage["mediaType"]; data: string } };

const imageBlock = (img: ChatImage) => ({
  type: "image" as const,
  source: { type: "base64" as const, media_type: img.mediaType, data: img.data },
});

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

/**
 * Anthropic rejects a text block that is empty or whitespace only (400 "text content blocks must
 * be non-empty" / "must contain non-whitespace text"), and models do write such blocks: a "\n\n"
 * before the thinking of an adaptive-thinking answer, a " " between the cited parts of a web-search
 * answer. They carry nothing, so they are left out of what goes back.
 */
const hasText = (text: string) => text.trim() !== "";
const nonEmpty = (text: string) => (hasText(text) ? text : "(empty)");

/**
 * The content blocks of an assistant message. With the blocks of the answer kept
 * (native.anthropic): thinking and redacted thinking unchanged and in their
 * place, text and tool_use where they were (the text as the message now says it:
 * a note appended to a cut answer goes into a text block of its own), unknown
 * blocks left out. Without them (older sessions, another provider's answer):
 * signed thinking, text, tool_use.
 */
function assistantBlocks(m: Extract<ChatMessage, { role: "assistant" }>): AnthropicBlockJson[] {
  const calls = m.toolCalls ?? [];
  const useBlock = (c: ToolCall): AnthropicBlockJson => ({
    type: "tool_use",
    id: c.id,
    name: c.name,
    input: toolInput(c.arguments),
  });
  const kept = m.native?.anthropic;
  const paused = m.finishRaw === "pause_turn";
  if (!kept) {
    const blocks: AnthropicBlockJson[] = [];
    // Thinking goes back only signed: the API rejects unsigned thinking blocks.
    if (m.reasoning && m.reasoningSignature)
      blocks.push({ type: "thinking", thinking: m.reasoning, signature: m.reasoningSignature });
    if (hasText(m.content)) blocks.push({ type: "text", text: m.content });
    for (const c of calls) blocks.push(useBlock(c));
    return blocks;
  }
  const blocks: AnthropicBlockJson[] = [];
  let keptText = "";
  const textAt: number[] = [];
  const placed = new Set<string>();
  for (const b of kept) {
    if (b.type === "thinking" && typeof b.signature === "string" && b.signature !== "") {
      blocks.push({
        type: "thinking",
        thinking: typeof b.thinking === "string" ? b.thinking : "",
        signature: b.signature,
      });
    } else if (b.type === "redacted_thinking" && typeof b.data === "string") {
      blocks.push({ type: "redacted_thinking", data: b.data });
    } else if (b.type === "text" && typeof b.text === "string") {
      keptText += b.text;
      if (hasText(b.text)) {
        textAt.push(blocks.length);
        blocks.push({ type: "text", text: b.text });
      }
    } else if (b.type === "tool_use") {
      const call = calls.find((c) => c.id === b.id);
      if (call && !placed.has(call.id)) {
        placed.add(call.id);
        blocks.push(useBlock(call));
      }
    } else if (paused && isServerToolBlock(b)) {
      // A paused turn continues from its content as it was: server tool calls and their results go back verbatim.
      blocks.push({ ...b } as unknown as AnthropicBlockJson);
    }
    // Any other block (server tools of a finished answer, fallback notes...) stays in the session only.
  }
  for (const c of calls) if (!placed.has(c.id)) blocks.push(useBlock(c));
  if (m.content !== keptText) {
    // The text changed since the answer (a note marks it cut off): what the message says now goes back.
    const firstUse = blocks.findIndex((b) => b.type === "tool_use");
    const at = firstUse < 0 ? blocks.length : firstUse;
    if (m.content.startsWith(keptText)) {
      const extra = m.content.slice(keptText.length).trim();
      if (extra) blocks.splice(at, 0, { type: "text", text: extra });
    } else {
      const rest = blocks.filter((_, i) => !textAt.includes(i));
      const firstUse2 = rest.findIndex((b) => b.type === "tool_use");
      if (hasText(m.content))
        rest.splice(firstUse2 < 0 ? rest.length : firstUse2, 0, { type: "text", text: m.content });
      return rest;
    }
  }
  return blocks;
}

/** A server tool's call or result (`server_tool_use`, `web_search_tool_result`, `web_fetch_tool_result`...). */
function isServerToolBlock(b: Record<string, unknown>): boolean {
  if (typeof b.type !== "string") return false;
  return b.type === "server_tool_use" || (b.type.endsWith("_tool_result") && b.type !== "tool_result");
}

/**
 * Leading system messages become the `system` parameter; a later one (a summary
 * after compaction...) stays where it is, as user text, since the API has no
 * system role inside the conversation. Consecutive messages of one role are
 * merged (tool results and the next user text form one user message), as the
 * API wants the roles to alternate.
 */
export function toAnthropicMessages(messages: ChatMessage[]): {
  system?: string;
  messages: AnthropicMessageJson[];
  ephemeral: Set<AnthropicBlockJson>;
} {
  const system: string[] = [];
  const out: AnthropicMessageJson[] = [];
  const ephemeral = new Set<AnthropicBlockJson>();
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
      case "user": {
        const blocks: AnthropicBlockJson[] = [
          { type: "text", text: nonEmpty(m.content) },
          ...(m.images ?? []).map(imageBlock),
        ];
        if (m.ephemeral) for (const b of blocks) ephemeral.add(b);
        add("user", blocks);
        break;
      }
      case "assistant":
        add("assistant", assistantBlocks(m));
        break;
      case "tool":
        // A tool_result's content may be text and image blocks: the images stay with the result they belong to.
        add("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId,
            content: m.images?.length
              ? [{ type: "text", text: nonEmpty(m.content) }, ...m.images.map(imageBlock)]
              : m.content,
            ...(m.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  // The API wants the conversation to open with the user (a history cut by compaction may not).
  if (out[0]?.role === "assistant") out.unshift({ role: "user", content: [{ type: "text", text: "(continued)" }] });
  return { ...(system.length ? { system: system.join("\n\n") } : {}), messages: out, ephemeral };
}

/** Anthropic's cap on cache_control markers in one request. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;

export type CacheControl = { type: "ephemeral"; ttl?: "1h" };

/**
 * Prompt-cache breakpoints (cache_control markers), at most four as the API allows. The API
 * caches the prefix of a request (tools, then system, then messages) up to a marked block, and
 * a later request whose prefix is byte-identical up to a block that was marked reads it back;
 * it also looks back about 20 blocks from each marker for an earlier entry. So the markers go:
 *   1. on the last tool: the tool list, cached even when the system prompt changes;
 *   2. on the system prompt (tools + system: the part every request of a session shares);
 *   3. on the last block of the user message before the last answer: where the previous
 *      request put its last marker, so its entry is read back however many blocks came since;
 *   4. on the last block of the last user message (the tool results or the prompt): written
 *      now, read by the next request.
 * Blocks sent with this request only (a reminder) are never marked, since the next request
 * does not repeat them. Returns the system prompt as blocks (markers live on blocks).
 * Changes `messages` and `tools` in place; they are this request's own copies.
 */
export function placeCacheBreakpoints(
  parts: {
    system?: string;
    messages: AnthropicMessageJson[];
    ephemeral: Set<AnthropicBlockJson>;
    tools?: Array<Record<string, unknown>>;
  },
  ttl: "5m" | "1h",
): { system?: Array<{ type: "text"; text: string; cache_control?: CacheControl }> } {
  const control: CacheControl = ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  let left = ANTHROPIC_MAX_CACHE_BREAKPOINTS;
  const lastTool = parts.tools?.[parts.tools.length - 1];
  if (lastTool) {
    lastTool.cache_control = { ...control };
    left--;
  }
  const system =
    parts.system !== undefined
      ? [{ type: "text" as const, text: parts.system, cache_control: { ...control } }]
      : undefined;
  if (system) left--;
  // The user messages' last cacheable blocks, newest first: the newest two get the remaining markers.
  const marks: AnthropicBlockJson[] = [];
  for (let i = parts.messages.length - 1; i >= 0 && marks.length < left; i--) {
    const m = parts.messages[i];
    if (m.role !== "user") continue;
    const block = [...m.content].reverse().find((b) => !parts.ephemeral.has(b) && cacheable(b));
    if (block) marks.push(block);
  }
  for (const b of marks) (b as AnthropicBlockJson & { cache_control?: CacheControl }).cache_control = { ...control };
  return system ? { system } : {};
}

/** Blocks the API takes a cache_control marker on (not thinking blocks; text only when not empty). */
function cacheable(b: AnthropicBlockJson): boolean {
  if (b.type === "text") return hasText(b.text);
  return b.type === "tool_result" || b.type === "image";
}

export function toAnthropicTools(tools: ToolSpec[]): Array<Record<string, unknown>> {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/** The fields of the stream events this module reads. */
export interface AnthropicEvent {
  type: string;
  index?: number;
  message?: { usage?: AnthropicUsage | null };
  content_block?: Record<string, unknown> & { type: string };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
    stop_details?: { explanation?: string; category?: string } | null;
  };
  usage?: AnthropicUsage | null;
  error?: unknown;
}

interface AnthropicUsage {
  input_tokens?: number | null;
  /** Tokens written to the cache (cache_creation_input_tokens), by time to live in `cache_creation`. */
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

export function anthropicFinishReason(stop: string | undefined): FinishReason {
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
      return "refusal";
    default:
      // pause_turn (a server-tool loop paused: turn.ts continues it), compaction...: kept verbatim as the raw reason.
      return "other";
  }
}

/**
 * A whole message (the answer to a request without `stream`, from a proxy that ignores
 * `stream: true`) as the events that would have streamed it: each block whole in its
 * content_block_start, then the stop reason and usage. Undefined when it is not a message.
 */
export function wholeMessageEvents(doc: unknown): AnthropicEvent[] | undefined {
  if (!doc || typeof doc !== "object") return undefined;
  const m = doc as {
    type?: unknown;
    content?: unknown;
    stop_reason?: string | null;
    stop_details?: { explanation?: string; category?: string } | null;
    usage?: AnthropicUsage | null;
  };
  if (m.type !== "message" || !Array.isArray(m.content)) return undefined;
  const events: AnthropicEvent[] = [{ type: "message_start", message: { usage: m.usage ?? null } }];
  (m.content as Array<Record<string, unknown> & { type: string }>).forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: block }, { type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: m.stop_reason ?? null, stop_details: m.stop_details ?? null },
      usage: m.usage ?? null,
    },
    { type: "message_stop" },
  );
  return events;
}

interface OpenBlock {
  /** The block as content_block_start gave it; the deltas below complete it. */
  start: Record<string, unknown> & { type: string };
  text: string;
  thinking: string;
  signature: string;
  json: string;
}

/**
 * Turns Messages stream events into StreamParts: text and thinking deltas at
 * once, usage whenever the server reports it, a tool call when its block closes
 * (all input_json_delta fragments in), the thinking signature when its block
 * closes; at the end the answer's blocks in order (native) and the finish.
 */
export class AnthropicEventAssembler {
  private open = new Map<number, OpenBlock>();
  /** Closed blocks by index: the answer's content in order. */
  private closed = new Map<number, Record<string, unknown>>();
  private input = 0;
  private cached = 0;
  private written = 0;
  private output = 0;
  private thinkingTokens = 0;
  private stop: string | undefined;
  private stopDetail: string | undefined;
  /** message_stop arrived: the answer is complete. */
  finished = false;

  push(ev: AnthropicEvent): StreamPart[] {
    switch (ev.type) {
      case "message_start":
        return this.addUsage(ev.message?.usage);
      case "content_block_start": {
        const b = ev.content_block ?? { type: "unknown" };
        const block: OpenBlock = { start: { ...b }, text: "", thinking: "", signature: "", json: "" };
        this.open.set(ev.index ?? 0, block);
        if (b.type === "text" && typeof b.text === "string" && b.text) {
          block.text = b.text;
          return [{ type: "text", delta: b.text }];
        }
        if (b.type === "thinking") {
          if (typeof b.signature === "string") block.signature = b.signature;
          if (typeof b.thinking === "string" && b.thinking) {
            block.thinking = b.thinking;
            return [{ type: "reasoning", delta: b.thinking }];
          }
        }
        return [];
      }
      case "content_block_delta": {
        const d = ev.delta ?? {};
        const block = this.open.get(ev.index ?? 0);
        if (d.type === "text_delta" && d.text) {
          if (block) block.text += d.text;
          // Text of a block rt does not know (none today) is not the answer's text.
          if (!block || block.start.type === "text") return [{ type: "text", delta: d.text }];
          return [];
        }
        if (d.type === "thinking_delta" && d.thinking) {
          if (block) block.thinking += d.thinking;
          return [{ type: "reasoning", delta: d.thinking }];
        }
        if (d.type === "signature_delta" && block) block.signature += d.signature ?? "";
        if (d.type === "input_json_delta" && block) block.json += d.partial_json ?? "";
        return [];
      }
      case "content_block_stop":
        return this.close(ev.index ?? 0);
      case "message_delta": {
        if (ev.delta?.stop_reason) this.stop = ev.delta.stop_reason;
        const detail = ev.delta?.stop_details?.explanation;
        if (typeof detail === "string" && detail) this.stopDetail = detail;
        return this.addUsage(ev.usage);
      }
      case "message_stop":
        this.finished = true;
        return [];
      default:
        // ping, and event types added later: nothing to do.
        return [];
    }
  }

  private close(index: number): StreamPart[] {
    const block = this.open.get(index);
    if (!block) return [];
    this.open.delete(index);
    const t = block.start.type;
    if (t === "text") {
      this.closed.set(index, { type: "text", text: block.text });
      return [];
    }
    if (t === "thinking") {
      // The thinking text may be empty (omitted by the model): the signature alone is what must go back.
      this.closed.set(index, { type: "thinking", thinking: block.thinking, signature: block.signature });
      return block.signature ? [{ type: "reasoning", delta: "", signature: block.signature }] : [];
    }
    if (t === "redacted_thinking") {
      this.closed.set(index, { ...block.start });
      return [];
    }
    if (t === "tool_use") {
      const id = typeof block.start.id === "string" ? block.start.id : `toolu_rt_${index}`;
      const name = typeof block.start.name === "string" ? block.start.name : "";
      const args =
        block.json ||
        (block.start.input && typeof block.start.input === "object" ? JSON.stringify(block.start.input) : "") ||
        "{}";
      this.closed.set(index, { type: "tool_use", id, name, input: safeParse(args) });
      return [{ type: "tool_call", call: { id, name, arguments: args } }];
    }
    // A block rt does not know: verbatim, with any streamed input completed.
    const kept: Record<string, unknown> = { ...block.start };
    if (block.json) kept.input = safeParse(block.json);
    if (block.text && typeof kept.text === "string") kept.text = block.text;
    this.closed.set(index, kept);
    return [];
  }

  /** message_start carries the input side; message_delta the (cumulative) output side and sometimes updated input. */
  private addUsage(u: AnthropicUsage | null | undefined): StreamPart[] {
    if (!u) return [];
    if (u.input_tokens != null || u.cache_read_input_tokens != null || u.cache_creation_input_tokens != null) {
      // Anthropic counts cached and cache-written tokens apart from input_tokens; the agent wants the whole prompt.
      this.input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      this.cached = u.cache_read_input_tokens ?? 0;
      this.written = u.cache_creation_input_tokens ?? 0;
    }
    if (u.output_tokens != null) this.output = u.output_tokens;
    const thinking = u.output_tokens_details?.thinking_tokens;
    if (typeof thinking === "number") this.thinkingTokens = thinking;
    const usage: Usage = { inputTokens: this.input, outputTokens: this.output };
    if (this.cached) usage.cachedInputTokens = this.cached;
    if (this.written) usage.cacheWriteTokens = this.written;
    if (this.thinkingTokens) usage.reasoningTokens = this.thinkingTokens;
    return [{ type: "usage", usage }];
  }

  private native(): NativeParts | undefined {
    if (!this.closed.size) return undefined;
    const blocks = [...this.closed.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
    return { anthropic: blocks };
  }

  /** What arrived before the stream broke: the blocks that closed. */
  partial(): StreamPart[] {
    const native = this.native();
    return native ? [{ type: "native", native }] : [];
  }

  end(): StreamPart[] {
    // Blocks the stream never stopped close now: when max_tokens cuts a tool_use in the middle of
    // its input, the API sends message_delta and message_stop without that block's
    // content_block_stop. Its call is still part of the answer (cut: the loop does not run it and
    // tells the model), and must be handed out like any other.
    const parts: StreamPart[] = [];
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) parts.push(...this.close(index));
    const native = this.native();
    if (native) parts.push({ type: "native", native });
    parts.push({
      type: "finish",
      reason: anthropicFinishReason(this.stop),
      ...(this.stop ? { raw: this.stop } : {}),
      ...(this.stopDetail ? { detail: this.stopDetail } : {}),
    });
    return parts;
  }
}

function safeParse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}
