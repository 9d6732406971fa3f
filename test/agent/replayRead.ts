// What a recording says, read the plain way (the test's own reading, written
// apart from src/: the two must agree): the answer's text and reasoning, the
// tool calls, the provider's finish word, its usage, an error, and for
// Anthropic the thinking blocks that must go back unchanged.
import { recordingText, type ManifestEntry } from "./replayServer.ts";

export interface RecordedAnswer {
  model?: string;
  text: string;
  reasoning: string;
  /** The provider's own finish word (finish_reason, stop_reason, done_reason). */
  finish?: string;
  usage?: { input: number; output: number };
  /** extra: the call's `extra_content` (Gemini's thought signature), which must come back on it. */
  toolCalls: Array<{ id?: string; name: string; args: string; extra?: unknown }>;
  error?: unknown;
  /** chat completions: the delta field the reasoning came in. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Anthropic: thinking and redacted_thinking blocks in order, as they must be sent back. */
  thinkingBlocks: Array<Record<string, unknown>>;
  /** Anthropic: the explanation of a refusal. */
  stopDetail?: string;
  /** Anthropic: the text of each text block, in order. */
  textBlocks?: string[];
  /** Anthropic: every content block of the message as it must go back to continue a paused turn. */
  blocks?: Array<Record<string, unknown>>;
  /** Responses API: the reasoning items (output_item.done), which must go back with their encrypted content. */
  reasoningItems?: Array<Record<string, unknown>>;
  /** Chat completions: OpenRouter-style reasoning_details arrived. */
  reasoningDetails?: boolean;
}

/** The JSON payloads of the recording's events, whatever its framing. */
function payloads(e: ManifestEntry): Array<{ event?: string; data: any }> {
  const text = recordingText(e);
  if (
    e.framing === "chunks-openai" ||
    e.framing === "chunks-anthropic" ||
    e.framing === "chunks-responses" ||
    e.framing === "ndjson"
  ) {
    return text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => ({ data: JSON.parse(l) }));
  }
  const out: Array<{ event?: string; data: any }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (!data.length || data.join("\n") === "[DONE]") continue;
    out.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return out;
}

function textOfParts(content: unknown, into: { text: string; reasoning: string }) {
  if (typeof content === "string") into.text += content;
  else if (Array.isArray(content)) {
    for (const p of content as any[]) {
      if (p?.type === "text") into.text += p.text;
      else if (p?.type === "thinking") for (const t of p.thinking as any[]) into.reasoning += t.text;
    }
  }
}

function readChat(e: ManifestEntry): RecordedAnswer {
  const a: RecordedAnswer = { text: "", reasoning: "", toolCalls: [], thinkingBlocks: [] };
  const calls = new Map<number, { id?: string; name: string; args: string; extra?: unknown }>();
  for (const { event, data } of payloads(e)) {
    if (event === "error") {
      a.error = data.error ?? data;
      break;
    }
    if (data.model) a.model ??= data.model;
    for (const choice of data.choices ?? []) {
      // rt asks for one answer; a server that sends several (n > 1) means choice 0 by it.
      if (typeof choice.index === "number" && choice.index !== 0) continue;
      const d = choice.delta ?? {};
      if (typeof d.reasoning_content === "string") {
        a.reasoningField ??= "reasoning_content";
        a.reasoning += d.reasoning_content;
      } else if (typeof d.reasoning === "string") {
        a.reasoningField ??= "reasoning";
        a.reasoning += d.reasoning;
      }
      if (Array.isArray(d.reasoning_details)) {
        a.reasoningDetails = true;
        // Shown from the details when the chunk says its reasoning nowhere else (Snowflake Cortex).
        if (!d.reasoning && !d.reasoning_content) {
          for (const x of d.reasoning_details)
            a.reasoning +=
              x.type === "reasoning.text" ? (x.text ?? "") : x.type === "reasoning.summary" ? (x.summary ?? "") : "";
        }
      }
      textOfParts(d.content, a);
      // OpenAI's refusal: the model's own words for declining are its answer.
      if (typeof d.refusal === "string") a.text += d.refusal;
      for (const t of d.tool_calls ?? []) {
        const index = t.index ?? calls.size;
        const c = calls.get(index) ?? { name: "", args: "" };
        if (t.id) c.id ??= t.id;
        c.name += t.function?.name ?? "";
        c.args += t.function?.arguments ?? "";
        if (t.extra_content !== undefined) c.extra = t.extra_content;
        calls.set(index, c);
      }
      if (choice.finish_reason && choice.finish_reason !== "error") a.finish = choice.finish_reason;
    }
    if (data.usage) a.usage = { input: data.usage.prompt_tokens, output: data.usage.completion_tokens };
    if (data.error) {
      a.error = data.error;
      break;
    }
  }
  a.toolCalls = [...calls.values()];
  // An answer that opens with <think> (R1 behind a router): the section is reasoning, the rest the answer.
  const think = /^\s*<think>([\s\S]*?)<\/think>\s*/.exec(a.text);
  if (think) {
    a.reasoning += think[1];
    a.text = a.text.slice(think[0].length);
  }
  return a;
}

function readResponses(e: ManifestEntry): RecordedAnswer {
  const a: RecordedAnswer = { text: "", reasoning: "", toolCalls: [], thinkingBlocks: [], reasoningItems: [] };
  let lastPart: string | undefined;
  for (const { data } of payloads(e)) {
    switch (data.type) {
      case "response.created":
        a.model ??= data.response.model;
        break;
      case "response.output_text.delta":
        a.text += data.delta;
        break;
      case "response.reasoning_summary_text.delta": {
        // Summary parts are separated by a blank line.
        const part = `${data.item_id}/${data.summary_index}`;
        if (lastPart !== undefined && lastPart !== part) a.reasoning += "\n\n";
        lastPart = part;
        a.reasoning += data.delta;
        break;
      }
      case "response.output_item.done":
        if (data.item.type === "reasoning") a.reasoningItems!.push(data.item);
        if (data.item.type === "function_call")
          a.toolCalls.push({ id: data.item.call_id, name: data.item.name, args: data.item.arguments });
        break;
      case "response.completed":
        a.finish = undefined;
        a.usage = { input: data.response.usage.input_tokens, output: data.response.usage.output_tokens };
        break;
      case "response.incomplete":
        a.finish = data.response.incomplete_details?.reason;
        break;
      case "error":
        a.error ??= data.error ?? data;
        break;
      case "response.failed":
        a.error ??= data.response.error;
        break;
    }
  }
  return a;
}

function readAnthropic(e: ManifestEntry): RecordedAnswer {
  const a: RecordedAnswer = { text: "", reasoning: "", toolCalls: [], thinkingBlocks: [] };
  const open = new Map<number, any>();
  let input = 0;
  let output = 0;
  for (const { data } of payloads(e)) {
    switch (data.type) {
      case "message_start": {
        a.model = data.message.model;
        const u = data.message.usage ?? {};
        input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
        output = u.output_tokens ?? 0;
        break;
      }
      case "content_block_start":
        open.set(data.index, { ...data.content_block, json: "" });
        if (data.content_block.type === "text") a.text += data.content_block.text ?? "";
        break;
      case "content_block_delta": {
        const b = open.get(data.index);
        const d = data.delta;
        if (d.type === "text_delta") {
          a.text += d.text;
          b.text = (b.text ?? "") + d.text;
        } else if (d.type === "thinking_delta") {
          a.reasoning += d.thinking;
          b.thinking = (b.thinking ?? "") + d.thinking;
        } else if (d.type === "signature_delta") b.signature = (b.signature ?? "") + d.signature;
        else if (d.type === "input_json_delta") b.json += d.partial_json;
        break;
      }
      case "content_block_stop": {
        const b = open.get(data.index);
        open.delete(data.index);
        {
          // The block as a whole, as it goes back to continue a paused turn.
          const { json, ...block } = b;
          if (json) block.input = JSON.parse(json);
          if (block.type === "text") (a.blocks ??= []).push({ type: "text", text: block.text ?? "" });
          else if (block.type === "thinking")
            (a.blocks ??= []).push({ type: "thinking", thinking: block.thinking ?? "", signature: block.signature });
          else (a.blocks ??= []).push(block);
        }
        if (b.type === "text") (a.textBlocks ??= []).push(b.text ?? "");
        else if (b.type === "thinking")
          a.thinkingBlocks.push({ type: "thinking", thinking: b.thinking ?? "", signature: b.signature });
        else if (b.type === "redacted_thinking") a.thinkingBlocks.push({ type: "redacted_thinking", data: b.data });
        else if (b.type === "tool_use") a.toolCalls.push({ id: b.id, name: b.name, args: b.json || "{}" });
        break;
      }
      case "message_delta": {
        a.finish = data.delta.stop_reason ?? a.finish;
        if (data.delta.stop_details?.explanation) a.stopDetail = data.delta.stop_details.explanation;
        const u = data.usage ?? {};
        if (u.input_tokens != null)
          input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
        if (u.output_tokens != null) output = u.output_tokens;
        break;
      }
      case "error":
        a.error = data.error;
        break;
    }
  }
  // A block the stream never stopped (the output limit cut it: Anthropic sends message_stop without
  // its content_block_stop) is still part of the answer, cut where it stands.
  for (const [index, b] of open) {
    if (b.type === "tool_use") a.toolCalls.push({ id: b.id, name: b.name, args: b.json || "{}" });
    open.delete(index);
  }
  a.usage = { input, output };
  return a;
}

function readOllama(e: ManifestEntry): RecordedAnswer {
  const a: RecordedAnswer = { text: "", reasoning: "", toolCalls: [], thinkingBlocks: [] };
  for (const { data } of payloads(e)) {
    a.model ??= data.model;
    a.text += data.message?.content ?? "";
    a.reasoning += data.message?.thinking ?? "";
    for (const c of data.message?.tool_calls ?? [])
      a.toolCalls.push({ name: c.function.name, args: JSON.stringify(c.function.arguments) });
    if (data.done) {
      a.finish = data.done_reason; // older Ollama versions (and its docs' first example) send none
      a.usage = { input: data.prompt_eval_count, output: data.eval_count };
    }
  }
  return a;
}

/** A whole answer (the API's answer to a request without `stream`): chat.completion or an Anthropic message. */
function readWhole(body: any): RecordedAnswer {
  const a: RecordedAnswer = { text: "", reasoning: "", toolCalls: [], thinkingBlocks: [] };
  a.model = body.model;
  if (body.type === "message") {
    for (const b of body.content ?? []) {
      if (b.type === "text") {
        a.text += b.text;
        (a.textBlocks ??= []).push(b.text);
      } else if (b.type === "thinking") {
        a.reasoning += b.thinking;
        a.thinkingBlocks.push({ type: "thinking", thinking: b.thinking, signature: b.signature });
      } else if (b.type === "redacted_thinking") a.thinkingBlocks.push({ type: "redacted_thinking", data: b.data });
      else if (b.type === "tool_use") a.toolCalls.push({ id: b.id, name: b.name, args: JSON.stringify(b.input) });
    }
    a.finish = body.stop_reason ?? undefined;
    const u = body.usage ?? {};
    a.usage = {
      input: (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
      output: u.output_tokens ?? 0,
    };
    return a;
  }
  const choice = (body.choices ?? []).find((c: any) => (c.index ?? 0) === 0) ?? {};
  const msg = choice.message ?? {};
  textOfParts(msg.content, a);
  if (typeof msg.refusal === "string") a.text += msg.refusal;
  for (const field of ["reasoning_content", "reasoning"] as const) {
    if (typeof msg[field] === "string") {
      a.reasoningField = field;
      a.reasoning += msg[field];
      break;
    }
  }
  for (const c of msg.tool_calls ?? [])
    a.toolCalls.push({ id: c.id, name: c.function.name, args: c.function.arguments ?? "" });
  a.finish = choice.finish_reason ?? undefined;
  if (body.usage) a.usage = { input: body.usage.prompt_tokens, output: body.usage.completion_tokens };
  return a;
}

export function readRecording(e: ManifestEntry): RecordedAnswer {
  if (e.framing === "json" && (e.status ?? 200) === 200) return readWhole(JSON.parse(recordingText(e)));
  if (e.framing === "json") {
    // Gemini's OpenAI-compatible endpoint wraps its error in an array: [{error: {code, message, status}}].
    const doc = JSON.parse(recordingText(e));
    return {
      text: "",
      reasoning: "",
      toolCalls: [],
      thinkingBlocks: [],
      error: (Array.isArray(doc) ? doc[0] : doc).error,
    };
  }
  if (e.provider === "anthropic") return readAnthropic(e);
  if (e.provider === "ollama") return readOllama(e);
  if (e.provider === "openai-responses") return readResponses(e);
  return readChat(e);
}
