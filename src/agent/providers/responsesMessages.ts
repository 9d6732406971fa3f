// The agent's messages in the shape of OpenAI's Responses API (/v1/responses), and the
// reassembly of its streamed events into StreamParts. Pure functions over plain data.
//
// The conversation goes as input items: messages (`instructions` holds the leading system
// text), `function_call` items for the model's calls, `function_call_output` items for their
// results. rt sends `store: false` (nothing is kept on OpenAI's side, so nothing can be
// referred to by id later) and asks for `reasoning.encrypted_content`: a reasoning model's
// reasoning items come back in the stream with their encrypted content, are kept with the
// answer (NativeParts.responses), and go back verbatim in every later request, which is how a
// reasoning model keeps its thinking across the tool calls of a turn without server state.
//
// The stream: `response.output_text.delta` (answer text), `response.refusal.delta`,
// `response.reasoning_summary_text.delta` (the summary of the reasoning; its parts are
// separated by a blank line), `response.reasoning_text.delta` (raw reasoning, gpt-oss and
// others that show it), `response.output_item.added` / `.done` (reasoning, message and
// function_call items), `response.function_call_arguments.delta`, then one of
// `response.completed`, `response.incomplete` (incomplete_details.reason: max_output_tokens,
// content_filter) or `response.failed` (response.error); an `error` event may come instead.
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

export type ResponsesContentJson =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string }
  | { type: "output_text"; text: string };

export type ResponsesItemJson =
  | { role: "user" | "developer"; content: string | ResponsesContentJson[] }
  | { type: "message"; role: "assistant"; content: ResponsesContentJson[] }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | Record<string, unknown>;

const imagePart = (img: ChatImage): ResponsesContentJson => ({
  type: "input_image",
  image_url: `data:${img.mediaType};base64,${img.data}`,
});

/** A reasoning item as it goes back: its type, id, summary and encrypted content (nothing the API refuses as input). */
function reasoningItem(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: "reasoning" };
  if (typeof item.id === "string") out.id = item.id;
  out.summary = Array.isArray(item.summary) ? item.summary : [];
  if (typeof item.encrypted_content === "string") out.encrypted_content = item.encrypted_content;
  return out;
}

/**
 * The request's `instructions` (the leading system messages) and `input` items. A later system
 * message (a summary after compaction) goes as a developer message where it stands. The images of
 * a run of tool results go in one user message right after the run, as for chat completions.
 */
export function toResponsesInput(messages: ChatMessage[]): { instructions?: string; input: ResponsesItemJson[] } {
  const system: string[] = [];
  const input: ResponsesItemJson[] = [];
  let pendingImages: ResponsesContentJson[] = [];
  const flush = () => {
    if (pendingImages.length) input.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };
  for (const m of messages) {
    if (m.role !== "tool") flush();
    switch (m.role) {
      case "system":
        if (input.length === 0) system.push(m.content);
        else input.push({ role: "developer", content: m.content });
        break;
      case "user": {
        const text: ResponsesContentJson = { type: "input_text", text: m.content };
        input.push(
          m.images?.length
            ? { role: "user", content: [text, ...m.images.map(imagePart)] }
            : { role: "user", content: m.content },
        );
        break;
      }
      case "assistant": {
        // Reasoning items first, verbatim (encrypted content and all), as the model produced them.
        for (const item of m.native?.responses ?? []) if (item.type === "reasoning") input.push(reasoningItem(item));
        if (m.content !== "") {
          input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: m.content }] });
        }
        for (const c of m.toolCalls ?? []) {
          input.push({ type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments || "{}" });
        }
        break;
      }
      case "tool":
        input.push({ type: "function_call_output", call_id: m.toolCallId, output: m.content });
        if (m.images?.length) {
          const what = m.images.length === 1 ? "image" : `${m.images.length} images`;
          pendingImages.push({
            type: "input_text",
            text: `The ${what} returned by ${m.name} (tool call ${m.toolCallId}):`,
          });
          pendingImages.push(...m.images.map(imagePart));
        }
        break;
    }
  }
  flush();
  return { ...(system.length ? { instructions: system.join("\n\n") } : {}), input };
}

export function toResponsesTools(tools: ToolSpec[]) {
  return tools.map((t) => ({
    type: "function" as const,
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
}

interface ResponsesUsageJson {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** The fields of the stream events this module reads. */
export interface ResponsesEvent {
  type: string;
  delta?: string;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  item?: Record<string, unknown> & { type?: string };
  response?: {
    status?: string;
    usage?: ResponsesUsageJson | null;
    incomplete_details?: { reason?: string | null } | null;
    error?: unknown;
  } | null;
  error?: unknown;
  message?: string;
  code?: string | null;
}

export function responsesUsage(u: ResponsesUsageJson): Usage {
  const usage: Usage = { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 };
  if (u.input_tokens_details?.cached_tokens) usage.cachedInputTokens = u.input_tokens_details.cached_tokens;
  if (u.output_tokens_details?.reasoning_tokens) usage.reasoningTokens = u.output_tokens_details.reasoning_tokens;
  return usage;
}

/** response.incomplete's reason in rt's words. */
export function incompleteFinish(reason: string | undefined | null): FinishReason {
  if (reason === "max_output_tokens") return "length";
  if (reason === "content_filter") return "content_filter";
  return "other";
}

interface PendingFunctionCall {
  callId: string;
  name: string;
  arguments: string;
  done: boolean;
}

/** The error a failed response carries (response.failed), or an error event, for the classifier. */
export class ResponsesStreamError {
  constructor(readonly error: unknown) {}
}

/**
 * Turns Responses stream events into StreamParts: text, reasoning and usage as they come, a
 * function call when its item is done, at the end the reasoning items to keep and the finish.
 * A `response.failed` or `error` event throws a ResponsesStreamError (after the parts so far).
 */
export class ResponsesEventAssembler {
  private calls = new Map<string, PendingFunctionCall>();
  private order: string[] = [];
  private reasoningItems: Array<Record<string, unknown>> = [];
  private lastSummary: { item?: string; index?: number } | undefined;
  private refused = false;
  private finish: { reason: FinishReason; raw: string } | undefined;
  private generatedIds = 0;
  /** response.completed or response.incomplete arrived: the answer is over. */
  finished = false;

  push(ev: ResponsesEvent): StreamPart[] {
    switch (ev.type) {
      case "response.output_text.delta":
        return ev.delta ? [{ type: "text", delta: ev.delta }] : [];
      case "response.refusal.delta":
        this.refused = true;
        return ev.delta ? [{ type: "text", delta: ev.delta }] : [];
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        if (!ev.delta) return [];
        // A new summary part (or item) after an earlier one: a blank line between them.
        const at = { item: ev.item_id, index: ev.summary_index };
        const last = this.lastSummary;
        const sep = last && (last.item !== at.item || last.index !== at.index) ? "\n\n" : "";
        this.lastSummary = at;
        return [{ type: "reasoning", delta: sep + ev.delta }];
      }
      case "response.output_item.added": {
        const item = ev.item ?? {};
        if (item.type === "function_call") this.openCall(item, ev.item_id);
        return [];
      }
      case "response.function_call_arguments.delta": {
        const call = ev.item_id ? this.calls.get(ev.item_id) : undefined;
        if (call && ev.delta) call.arguments += ev.delta;
        return [];
      }
      case "response.output_item.done": {
        const item = ev.item ?? {};
        if (item.type === "reasoning") {
          this.reasoningItems.push({ ...item });
          return [{ type: "native", native: this.native() }];
        }
        if (item.type === "function_call") return this.closeCall(item);
        return [];
      }
      case "response.completed":
      case "response.incomplete": {
        this.finished = true;
        const r = ev.response ?? {};
        if (ev.type === "response.incomplete") {
          const raw = r.incomplete_details?.reason ?? "incomplete";
          this.finish = { reason: incompleteFinish(raw), raw };
        }
        return r.usage ? [{ type: "usage", usage: responsesUsage(r.usage) }] : [];
      }
      case "response.failed": {
        const r = ev.response ?? {};
        const parts: StreamPart[] = r.usage ? [{ type: "usage", usage: responsesUsage(r.usage) }] : [];
        this.failure = new ResponsesStreamError(r.error ?? { message: "the response failed (no error given)" });
        return parts;
      }
      case "error":
        // {type: "error", code, message} (the documented shape) or {type: "error", error: {...}} (as recorded).
        this.failure = new ResponsesStreamError(
          ev.error && typeof ev.error === "object"
            ? ev.error
            : { message: ev.message ?? "error", ...(ev.code ? { code: ev.code } : {}) },
        );
        return [];
      default:
        return [];
    }
  }

  /** Set by response.failed or an error event: the caller throws it after the parts of that event. */
  failure: ResponsesStreamError | undefined;

  private openCall(item: Record<string, unknown>, itemId: string | undefined) {
    const key = typeof item.id === "string" ? item.id : (itemId ?? `fc_${this.order.length}`);
    if (this.calls.has(key)) return;
    this.calls.set(key, {
      callId: typeof item.call_id === "string" ? item.call_id : "",
      name: typeof item.name === "string" ? item.name : "",
      arguments: typeof item.arguments === "string" ? item.arguments : "",
      done: false,
    });
    this.order.push(key);
  }

  private closeCall(item: Record<string, unknown>): StreamPart[] {
    const key = typeof item.id === "string" ? item.id : undefined;
    if (!key || !this.calls.has(key)) this.openCall(item, key);
    const call = this.calls.get(key ?? this.order[this.order.length - 1])!;
    if (call.done) return [];
    call.done = true;
    // The done item carries the whole arguments: they win over the fragments.
    if (typeof item.arguments === "string") call.arguments = item.arguments;
    if (typeof item.call_id === "string") call.callId = item.call_id;
    if (typeof item.name === "string" && item.name) call.name = item.name;
    if (!call.name) return [];
    if (!call.callId) call.callId = `call_rt_${++this.generatedIds}`;
    return [{ type: "tool_call", call: { id: call.callId, name: call.name, arguments: call.arguments } }];
  }

  private native(): NativeParts {
    return { responses: this.reasoningItems };
  }

  /** What arrived before the stream broke: the reasoning items that were complete. */
  partial(): StreamPart[] {
    return this.reasoningItems.length ? [{ type: "native", native: this.native() }] : [];
  }

  /** The end of a finished response: calls whose item never said done (cut), native parts, finish. */
  end(): StreamPart[] {
    const parts: StreamPart[] = [];
    const calls: ToolCall[] = [];
    for (const key of this.order) {
      const call = this.calls.get(key)!;
      if (call.done) {
        if (call.name) calls.push({ id: call.callId, name: call.name, arguments: call.arguments });
        continue;
      }
      // A call cut by the output limit: still part of the answer (the loop does not run a cut call).
      if (!call.name) continue;
      if (!call.callId) call.callId = `call_rt_${++this.generatedIds}`;
      const c = { id: call.callId, name: call.name, arguments: call.arguments };
      calls.push(c);
      parts.push({ type: "tool_call", call: c });
    }
    if (this.reasoningItems.length) parts.push({ type: "native", native: this.native() });
    let reason: FinishReason = this.finish?.reason ?? "stop";
    if (reason === "stop" && calls.length) reason = "tool_calls";
    if (reason === "stop" && this.refused) reason = "refusal";
    parts.push({ type: "finish", reason, ...(this.finish ? { raw: this.finish.raw } : {}) });
    return parts;
  }
}
