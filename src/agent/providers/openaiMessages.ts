// The agent's messages and tools in the chat-completions shape, and the
// reassembly of streamed chat-completion chunks into StreamParts. Pure
// functions over plain data: the `openai` package is only a transport.
//
// What servers send that the OpenAI reference does not name, read here:
//   delta.content as an array of typed parts (Mistral's reasoning models:
//     [{type: "thinking", thinking: [{type: "text", text}]}, {type: "text", text}])
//   delta.reasoning_content (DeepSeek, vLLM, llama.cpp, Z.ai), delta.reasoning (OpenRouter,
//     Groq, Ollama's /v1), delta.reasoning_details (OpenRouter: typed, signed or encrypted)
//   delta.refusal (OpenAI: the model declined)
//   an `error` object in a chunk (OpenRouter, with the usage and finish reason of the
//     answer so far in the same chunk), finish_reason "error"
//   reasoning only in delta.reasoning_details (Snowflake Cortex's Claude models: entries of
//     type reasoning.text), shown from the details when no reasoning string came with them
//   reasoning in delta.content between <think> and </think> (DeepSeek R1 and its distills
//     served through routers: Hugging Face, Together, Groq without a reasoning format)
//   a stream that ends with usage and [DONE] and never sends a finish_reason (Snowflake Cortex)
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

export interface OpenAIToolCallJson {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  /** Gemini: the call's thought signature ({google: {thought_signature}}), as it came. */
  extra_content?: unknown;
}

/** A content part of a user message: text, or an image as a data URL (chat completions' `image_url`). */
export type OpenAIContentPartJson = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export type OpenAIMessageJson =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPartJson[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: OpenAIToolCallJson[];
      reasoning_content?: string;
      reasoning?: string;
      reasoning_details?: Array<Record<string, unknown>>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * The assistant messages whose reasoning goes back: those of a user turn (the
 * messages between two user messages) in which the model called tools. DeepSeek's
 * thinking mode requires the reasoning_content of such turns in every later
 * request (400 without it) and ignores it elsewhere; OpenRouter needs the
 * reasoning details of tool-calling turns to continue them. Outside such turns
 * nothing is sent back: older reasoners (deepseek-reasoner) reject reasoning in
 * the input.
 */
function turnsWithToolCalls(messages: ChatMessage[]): Set<number> {
  const out = new Set<number>();
  let turn: number[] = [];
  let called = false;
  const close = () => {
    if (called) for (const i of turn) out.add(i);
    turn = [];
    called = false;
  };
  messages.forEach((m, i) => {
    if (m.role === "user") close();
    else if (m.role === "assistant") {
      turn.push(i);
      if (m.toolCalls?.length) called = true;
    }
  });
  close();
  return out;
}

const imagePart = (img: ChatImage): OpenAIContentPartJson => ({
  type: "image_url",
  image_url: { url: `data:${img.mediaType};base64,${img.data}` },
});

/**
 * Chat completions' tool messages carry text only (their content parts are
 * `text` parts), so the images of a run of tool results go in one user message
 * right after the run, each introduced by the call it came from; the tool
 * messages must follow their assistant message without anything between them.
 */
function withToolImagesAfter(messages: OpenAIMessageJson[], source: ChatMessage[]): OpenAIMessageJson[] {
  const out: OpenAIMessageJson[] = [];
  let pending: OpenAIContentPartJson[] = [];
  const flush = () => {
    if (pending.length) out.push({ role: "user", content: pending });
    pending = [];
  };
  source.forEach((m, i) => {
    if (m.role !== "tool") flush();
    out.push(messages[i]);
    if (m.role === "tool" && m.images?.length) {
      pending.push({
        type: "text",
        text: `The ${m.images.length === 1 ? "image" : `${m.images.length} images`} returned by ${m.name} (tool call ${m.toolCallId}):`,
      });
      for (const img of m.images) pending.push(imagePart(img));
    }
  });
  flush();
  return out;
}

export function toOpenAIMessages(messages: ChatMessage[]): OpenAIMessageJson[] {
  const withReasoning = turnsWithToolCalls(messages);
  const mapped = messages.map((m, i): OpenAIMessageJson => {
    switch (m.role) {
      case "system":
        return { role: m.role, content: m.content };
      case "user":
        return m.images?.length
          ? { role: "user", content: [{ type: "text", text: m.content }, ...m.images.map(imagePart)] }
          : { role: "user", content: m.content };
      case "assistant": {
        const calls = m.toolCalls ?? [];
        const out: Extract<OpenAIMessageJson, { role: "assistant" }> = calls.length
          ? {
              role: "assistant",
              content: m.content === "" ? null : m.content,
              tool_calls: calls.map((c): OpenAIToolCallJson => {
                const extra = m.native?.toolCallExtras?.[c.id];
                return {
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments || "{}" },
                  ...(extra !== undefined ? { extra_content: extra } : {}),
                };
              }),
            }
          : { role: "assistant", content: m.content };
        if (withReasoning.has(i)) {
          // Back in the field it came in (a reasoning from another provider has none: it stays out).
          const field = m.native?.reasoningField;
          if (field) out[field] = m.reasoning ?? "";
          if (m.native?.reasoningDetails?.length) out.reasoning_details = m.native.reasoningDetails;
        }
        return out;
      }
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
    }
  });
  return withToolImagesAfter(mapped, messages);
}

export function toOpenAITools(tools: ToolSpec[]) {
  return tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** The fields of a streamed chunk this module reads (servers add others). */
export interface OpenAIChunk {
  choices?: Array<{
    delta?: {
      content?: unknown;
      /** vLLM, llama.cpp, DeepSeek, LM Studio, Z.ai. */
      reasoning_content?: string | null;
      /** Ollama, OpenRouter, Groq. */
      reasoning?: string | null;
      /** OpenRouter. */
      reasoning_details?: unknown;
      refusal?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null };
        extra_content?: unknown;
      }> | null;
    } | null;
    finish_reason?: string | null;
    index?: number;
  }> | null;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  /** Groq's own usage report. */
  x_groq?: { usage?: OpenAIChunk["usage"] } | null;
  /** An error reported inside the stream (OpenRouter: `{code, message}`; others `{message, type}`). */
  error?: unknown;
}

export function finishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "length":
    case "max_tokens":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}

export function usageFrom(u: NonNullable<OpenAIChunk["usage"]>): Usage {
  const usage: Usage = { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0 };
  if (u.prompt_tokens_details?.cached_tokens) usage.cachedInputTokens = u.prompt_tokens_details.cached_tokens;
  if (u.completion_tokens_details?.reasoning_tokens)
    usage.reasoningTokens = u.completion_tokens_details.reasoning_tokens;
  return usage;
}

/** Text and reasoning in one `delta.content`, whatever its documented shape; parts of unknown types come back apart. */
export function contentParts(content: unknown): { text: string; reasoning: string; unknown: unknown[] } {
  const out = { text: "", reasoning: "", unknown: [] as unknown[] };
  if (content === null || content === undefined) return out;
  if (typeof content === "string") {
    out.text = content;
    return out;
  }
  const parts = Array.isArray(content) ? content : [content];
  for (const part of parts) {
    if (typeof part === "string") {
      out.text += part;
      continue;
    }
    const p = (part ?? {}) as Record<string, unknown>;
    if (p.type === "text" && typeof p.text === "string") out.text += p.text;
    else if (p.type === "thinking" || p.type === "reasoning") {
      // Mistral: {type: "thinking", thinking: [{type: "text", text}]}; others a plain string.
      const inner = p.type === "thinking" ? p.thinking : (p.reasoning ?? p.text);
      if (typeof inner === "string") out.reasoning += inner;
      else if (Array.isArray(inner)) {
        const nested = contentParts(inner);
        out.reasoning += nested.text + nested.reasoning;
        out.unknown.push(...nested.unknown);
      } else if (typeof p.text === "string") out.reasoning += p.text;
      else out.unknown.push(part);
    } else out.unknown.push(part);
  }
  return out;
}

/**
 * A whole chat.completion (the answer to a request without `stream`, sent by a server that
 * ignores `stream: true`) as the one chunk that says all of it: each choice's `message` becomes
 * its `delta`, its tool calls numbered by position. Undefined when the document is not a
 * chat completion.
 */
export function wholeCompletionChunk(doc: unknown): OpenAIChunk | undefined {
  if (!doc || typeof doc !== "object" || !Array.isArray((doc as { choices?: unknown }).choices)) return undefined;
  const d = doc as {
    choices: Array<Record<string, unknown>>;
    usage?: OpenAIChunk["usage"];
    x_groq?: OpenAIChunk["x_groq"];
  };
  return {
    choices: d.choices.map((c) => {
      const message = (c.message ?? {}) as Record<string, unknown>;
      const calls = Array.isArray(message.tool_calls)
        ? (message.tool_calls as Array<Record<string, unknown>>)
        : undefined;
      return {
        ...(typeof c.index === "number" ? { index: c.index } : {}),
        delta: {
          ...message,
          ...(calls
            ? { tool_calls: calls.map((t, i) => ({ ...t, index: typeof t.index === "number" ? t.index : i })) }
            : {}),
        },
        finish_reason: typeof c.finish_reason === "string" ? c.finish_reason : null,
      };
    }),
    ...(d.usage ? { usage: d.usage } : {}),
    ...(d.x_groq ? { x_groq: d.x_groq } : {}),
  } as OpenAIChunk;
}

/** The reasoning a `reasoning_details` entry shows: a reasoning.text's text, a reasoning.summary's summary. */
export function detailText(detail: unknown): string {
  if (!detail || typeof detail !== "object") return "";
  const d = detail as Record<string, unknown>;
  if (d.type === "reasoning.text" && typeof d.text === "string") return d.text;
  if (d.type === "reasoning.summary" && typeof d.summary === "string") return d.summary;
  return "";
}

const OPEN_THINK = "<think>";
const CLOSE_THINK = "</think>";

/**
 * Splits streamed content into reasoning and answer text when the answer opens with `<think>`
 * (after white space): what stands between it and `</think>` is reasoning, the rest is text (its
 * leading white space dropped). A tag split across chunks is held back until it is whole. An
 * answer that does not open with the tag is text, untouched, tags and all.
 */
export class ThinkTagSplitter {
  private state: "start" | "think" | "text" = "start";
  private pending = "";
  /** Right after </think>: the white space that separates reasoning from the answer is dropped. */
  private trimText = false;

  push(delta: string): { reasoning: string; text: string } {
    const out = { reasoning: "", text: "" };
    this.pending += delta;
    if (this.state === "start") {
      const trimmed = this.pending.trimStart();
      if (trimmed.length < OPEN_THINK.length && OPEN_THINK.startsWith(trimmed)) return out; // not decided yet
      if (trimmed.startsWith(OPEN_THINK)) {
        this.state = "think";
        this.pending = trimmed.slice(OPEN_THINK.length);
      } else {
        this.state = "text";
      }
    }
    if (this.state === "think") {
      const end = this.pending.indexOf(CLOSE_THINK);
      if (end < 0) {
        // Keep back a tail that may be the start of </think>.
        let keep = Math.min(CLOSE_THINK.length - 1, this.pending.length);
        while (keep > 0 && !CLOSE_THINK.startsWith(this.pending.slice(-keep))) keep--;
        out.reasoning = this.pending.slice(0, this.pending.length - keep);
        this.pending = this.pending.slice(this.pending.length - keep);
        return out;
      }
      out.reasoning = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + CLOSE_THINK.length);
      this.state = "text";
      this.trimText = true;
    }
    let text = this.pending;
    this.pending = "";
    if (this.trimText) {
      text = text.trimStart();
      if (text) this.trimText = false;
    }
    out.text = text;
    return out;
  }

  /** What is held back when the answer ends: an undecided start is text, an unclosed thought is reasoning. */
  flush(): { reasoning: string; text: string } {
    const rest = this.pending;
    this.pending = "";
    if (this.state === "think") return { reasoning: rest, text: "" };
    return { reasoning: "", text: this.trimText ? rest.trimStart() : rest };
  }
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
  /** `extra_content` of the call (Gemini's thought signature), verbatim. */
  extra?: unknown;
}

/**
 * Turns chat-completion chunks into StreamParts. Text and reasoning pass through
 * at once; usage as soon as it is reported (so a stream that breaks afterwards
 * still counts it); tool calls are collected by `index` from their fragments and
 * handed out whole when the answer finishes, then native parts and finish.
 */
export class OpenAIChunkAssembler {
  private calls: PendingCall[] = [];
  /** index in the server's numbering → position in `calls`. */
  private byIndex = new Map<number, number>();
  private finish: string | undefined;
  private generatedIds = 0;
  private reasoningField: NativeParts["reasoningField"];
  private details: Array<Record<string, unknown>> = [];
  private unknownParts: unknown[] = [];
  private refused = false;
  /** Set when `<think>` tags in the content are read as reasoning (the default; `think_tags: false` turns it off). */
  private think: ThinkTagSplitter | undefined;
  /** The error object of an error chunk, once one arrived (the caller throws it after the chunk's other parts). */
  error: unknown;

  constructor(opts: { thinkTags?: boolean } = {}) {
    if (opts.thinkTags !== false) this.think = new ThinkTagSplitter();
  }

  /** The parts a chunk completes (text, reasoning, usage; tool calls and finish wait for end()). */
  push(chunk: OpenAIChunk): StreamPart[] {
    const parts: StreamPart[] = [];
    for (const choice of chunk.choices ?? []) {
      // rt asks for one answer. A server that sends several anyway (n > 1 set upstream, a proxy)
      // interleaves their chunks; the answer is choice 0, the others are not part of it.
      if (typeof choice?.index === "number" && choice.index !== 0) continue;
      const d = choice?.delta ?? {};
      let saidReasoning = false;
      for (const field of ["reasoning_content", "reasoning"] as const) {
        const r = d[field];
        if (typeof r !== "string") continue;
        this.reasoningField ??= field;
        if (r) parts.push({ type: "reasoning", delta: r });
        saidReasoning = r !== "";
        break; // a server that sends both (vLLM's transition) means the same text twice
      }
      if (Array.isArray(d.reasoning_details)) {
        this.mergeDetails(d.reasoning_details);
        // OpenRouter sends the thought in `reasoning` too; a server that sends only the details is shown from them.
        const shown = saidReasoning ? "" : d.reasoning_details.map(detailText).join("");
        if (shown) parts.push({ type: "reasoning", delta: shown });
      }
      const content = contentParts(d.content);
      if (content.reasoning) parts.push({ type: "reasoning", delta: content.reasoning });
      if (content.text) parts.push(...this.textParts(content.text));
      this.unknownParts.push(...content.unknown);
      if (typeof d.refusal === "string" && d.refusal) {
        // The model's own words for declining: shown and kept as its answer.
        this.refused = true;
        parts.push({ type: "text", delta: d.refusal });
      }
      for (const frag of d.tool_calls ?? []) this.addFragment(frag);
      // OpenRouter ends a failed stream with finish_reason "error" next to its error object.
      if (choice?.finish_reason && choice.finish_reason !== "error") this.finish = choice.finish_reason;
    }
    // Groq reports usage in x_groq.usage (and, asked for it, at the top level too).
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) parts.push({ type: "usage", usage: usageFrom(usage) });
    if (chunk.error !== undefined && chunk.error !== null) this.error = chunk.error;
    return parts;
  }

  /** Answer text, with a leading <think> section read as reasoning (see ThinkTagSplitter). */
  private textParts(text: string): StreamPart[] {
    if (!this.think) return [{ type: "text", delta: text }];
    const split = this.think.push(text);
    const parts: StreamPart[] = [];
    if (split.reasoning) parts.push({ type: "reasoning", delta: split.reasoning });
    if (split.text) parts.push({ type: "text", delta: split.text });
    return parts;
  }

  /** The text and reasoning held back at the end of the answer (a tag that may have continued). */
  private flushText(): StreamPart[] {
    if (!this.think) return [];
    const split = this.think.flush();
    const parts: StreamPart[] = [];
    if (split.reasoning) parts.push({ type: "reasoning", delta: split.reasoning });
    if (split.text) parts.push({ type: "text", delta: split.text });
    return parts;
  }

  /** OpenRouter streams each detail in pieces that share an `index`: text is joined, other fields take the latest value. */
  private mergeDetails(details: unknown[]) {
    for (const raw of details) {
      if (!raw || typeof raw !== "object") continue;
      const d = raw as Record<string, unknown>;
      const index = typeof d.index === "number" ? d.index : undefined;
      const same = index === undefined ? undefined : this.details.find((x) => x.index === index && x.type === d.type);
      if (!same) {
        this.details.push({ ...d });
        continue;
      }
      for (const [k, v] of Object.entries(d)) {
        if ((k === "text" || k === "summary" || k === "data") && typeof v === "string" && typeof same[k] === "string")
          same[k] = (same[k] as string) + v;
        else if (v !== null && v !== undefined) same[k] = v;
      }
    }
  }

  private addFragment(
    frag: NonNullable<
      NonNullable<NonNullable<NonNullable<OpenAIChunk["choices"]>[number]>["delta"]>["tool_calls"]
    >[number],
  ) {
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
    if (frag.extra_content !== undefined && frag.extra_content !== null) call.extra = frag.extra_content;
  }

  /** Whether the server said the answer is complete (a finish_reason arrived). */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** What must be kept with the message to send it back as it came. */
  private native(calls: Array<ToolCall | undefined> = []): NativeParts | undefined {
    const n: NativeParts = {};
    const extras = this.calls.flatMap((c, i) =>
      c.extra !== undefined && calls[i] ? [[calls[i].id, c.extra] as const] : [],
    );
    if (extras.length) n.toolCallExtras = Object.fromEntries(extras);
    if (this.reasoningField) n.reasoningField = this.reasoningField;
    if (this.details.length) n.reasoningDetails = this.details;
    if (this.unknownParts.length) n.unknownParts = this.unknownParts;
    return Object.keys(n).length ? n : undefined;
  }

  /** The parts that wait for the end: complete tool calls, native parts, finish. */
  end(): StreamPart[] {
    const parts: StreamPart[] = this.flushText();
    // (Unnamed fragments are no call; their position stays, to pair each call with its extras.)
    const all = this.calls.map((c) =>
      c.name === ""
        ? undefined
        : { id: c.id || `call_rt_${++this.generatedIds}`, name: c.name, arguments: c.arguments },
    );
    const calls = all.filter((c): c is ToolCall => c !== undefined);
    for (const call of calls) parts.push({ type: "tool_call", call });
    const native = this.native(all);
    if (native) parts.push({ type: "native", native });
    // No finish_reason at all: the stream ended with [DONE] (Snowflake Cortex), which says the answer is whole.
    const raw = this.finish;
    let reason = finishReason(raw ?? "stop");
    // Some servers (Ollama among them) say "stop" after tool calls; the agent needs to know there are
    // calls to run. A cut or filtered answer stays what it is: its last call may be incomplete.
    if (calls.length && (reason === "stop" || reason === "other")) reason = "tool_calls";
    if (this.refused && reason === "stop") reason = "refusal";
    parts.push({ type: "finish", reason, ...(raw !== undefined ? { raw } : {}) });
    return parts;
  }

  /** What arrived before the stream broke: calls are not handed out (their arguments may be cut), native parts are. */
  partial(): StreamPart[] {
    const native = this.native();
    return [...this.flushText(), ...(native ? [{ type: "native" as const, native }] : [])];
  }
}
