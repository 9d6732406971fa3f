// A scripted model server for tests: real HTTP on 127.0.0.1 (random port),
// speaking the wire protocols the providers speak, answering from a queue of
// scripted replies and recording every request it received.
//
//   import { startLlmServer } from "../llm-server.ts";
//
//   const server = await startLlmServer();           // or startLlmServer({ models: [...] })
//   server.script(
//     { text: "Let me look.", toolCalls: [{ name: "read", arguments: { path: "a.py" } }] },
//     { text: "Done." },
//   );
//   const provider = createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ... });
//   //   or createAnthropicProvider({ baseURL: server.anthropicBaseUrl, ... })
//   //   or createOllamaProvider({ baseURL: server.url, ... })   (OLLAMA_HOST=server.url for the CLI)
//   ... run the code under test ...
//   server.completions[0].body.messages               // what the model was sent (model calls only;
//                                                     // server.requests has every request, probes too)
//   server.pending                                    // scripted replies not consumed yet
//   server.script((req) => ({ text: `got ${req.body.messages.length} messages` }))   // computed reply
//   await server.close();
//   server.requests[i].receivedAt / .answeredAt   performance.now() when a request arrived and
//                                                 when its answer's last byte was sent
//
// Endpoints
//   POST .../chat/completions   OpenAI chat completions. With "stream": true: SSE
//                               `data: {chunk}` lines and `data: [DONE]`; usage in a
//                               last chunk with empty choices when the request asks
//                               (stream_options.include_usage). Without: one JSON body.
//   POST /v1/messages           Anthropic Messages streaming: message_start,
//                               content_block_start/delta/stop (thinking_delta +
//                               signature_delta, text_delta, input_json_delta),
//                               message_delta (stop_reason, usage), message_stop
//                               (always streamed, whatever "stream" says).
//   POST /api/chat              Ollama's native chat (always streamed, whatever "stream"
//                               says): NDJSON lines {message: {role, content, thinking?,
//                               tool_calls?}, done: false}, then {done: true, done_reason,
//                               prompt_eval_count, eval_count}. Tool calls come whole in
//                               one line, arguments as objects, with an `id` only when the
//                               script gives one (Ollama before 0.12.10 sends none).
//                               Errors: the HTTP status with {"error": "..."}; in-stream,
//                               a {"error": "..."} line.
//   POST .../responses          OpenAI Responses API. With "stream": true: SSE events named by
//                               their type (response.created, response.in_progress,
//                               output_item.added/done around each item's deltas,
//                               response.completed or .incomplete); without: the response JSON.
//                               A call to a tool declared `type: "custom"` is a custom_tool_call.
//   GET  .../models             OpenAI model list (Anthropic's shape when the request
//                               carries an anthropic-version header).
//   GET  /api/tags, POST /api/show, GET /api/version   Ollama's native API.
// Each POST to a completion endpoint takes the next scripted reply (a reply may
// be a function of the request); none left answers 500 "no scripted reply left".
// startLlmServer({ requireKey: "k" }) answers 401 to requests without that key: in
// `x-api-key` for the Anthropic protocol (its reference puts API keys there; a Bearer
// token is something else), `Authorization: Bearer` for the others.
//
// A reply (LlmReply) is rendered in the protocol of the endpoint it answers:
//   text: "..." | ["chunk", ...]      a string is streamed word by word
//   reasoning: "..." | [...]          OpenAI: delta.reasoning_content (or the field
//                                     named by reasoningField); Anthropic: a thinking block
//                                     ("" or []: a block with only its signature, as models
//                                     that omit their thinking text send it); Ollama: message.thinking
//   redactedThinking: ["data", ...]   Anthropic: redacted_thinking blocks (after the thinking block)
//   toolCalls: [{ id?, name, arguments: object | "raw json text", fragments? }]
//                                     arguments streamed in `fragments` pieces (default 3)
//   usage: { input, output, cached?, reasoning? } | false   (default: estimated from sizes;
//                                     Anthropic reports reasoning as output_tokens_details.thinking_tokens)
//                                     Anthropic, a request with cache_control markers and no scripted
//                                     usage: the prompt cache below decides what was read and written.
// Anthropic's prompt cache, as its documentation (platform.claude.com, "Prompt caching") states it:
//   the prompt is tools, then system, then messages, block by block; a block with cache_control
//   is a breakpoint (at most 4, else 400); each breakpoint writes the prefix ending at it to the
//   cache (when that prefix has at least `cacheMinTokens`, default 1024, Sonnet's minimum); a
//   request reads the longest cached prefix that ends at a breakpoint or at one of the 20 blocks
//   before a breakpoint (the lookback), matching byte for byte (cache_control itself not counted).
//   usage: cache_read_input_tokens = the prefix read; cache_creation_input_tokens = from there to
//   the last breakpoint; input_tokens = the rest after the last breakpoint. Tokens are estimated
//   as a block's JSON length / 4. The cache lives as long as the server (TTL not modelled).
//   server.cacheLog[i]: what request i of the Anthropic protocol read, wrote and paid in full.
//   finish: "stop" | "length" | ... (default: "tool_calls" when toolCalls, else "stop";
//                                     Anthropic's words: "end_turn", "max_tokens", "refusal"...)
//   stopDetails: "..."                Anthropic: stop_details.explanation (a refusal's reason)
//   chunkDelayMs                      pause between streamed events
//   delayMs                           pause before answering at all (a model's time to its first token)
// Failures:
//   status: 429 | 500 | 400 ..., message?, headers? (e.g. { "retry-after": "1" }), body?
//   toolsUnsupported: true            400 "<model> does not support tools", as Ollama says it
//   (n below counts SSE events, the opening ones included: OpenAI sends a role chunk
//   first; Anthropic message_start, then content_block_start and a ping before text;
//   Ollama has no opening line: thinking pieces, text pieces, one tool-call line, done)
//   breakAfter: n                     send n streamed events, then destroy the socket
//   hangAfter: n                      send n streamed events, then nothing (connection open)
//   hang: true                        accept the request and never answer
//   errorEventAfter: n                send n events, then an in-stream error event
//   raw: ["data line", ...]           OpenAI: these `data:` payloads verbatim, then [DONE];
//                                     Ollama: these NDJSON lines verbatim, nothing else
// Builders: reply.text("hi"), reply.toolCall("read", { path: "a" }), reply.error(429, {...}),
// reply.hang(), reply.toolsUnsupported().
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** An object (sent as its JSON) or the exact argument text (may be invalid JSON on purpose). */
  arguments: Record<string, unknown> | string;
  /** Number of pieces the argument text is streamed in (default 3). */
  fragments?: number;
}

export interface ScriptedUsage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export interface LlmReply {
  text?: string | string[];
  reasoning?: string | string[];
  /** OpenAI protocol: the delta field reasoning is sent in (vLLM/DeepSeek: reasoning_content; Ollama/OpenRouter: reasoning). */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Anthropic protocol: signature sent at the end of the thinking block (default "sig-test"). */
  signature?: string;
  /** Anthropic protocol: redacted_thinking blocks, each with this opaque data. */
  redactedThinking?: string[];
  /** Anthropic protocol: stop_details.explanation in message_delta. */
  stopDetails?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage | false;
  finish?: string;
  chunkDelayMs?: number;
  /** Pause before answering at all, as a model takes time to its first token. */
  delayMs?: number;
  status?: number;
  message?: string;
  headers?: Record<string, string>;
  /** Error body verbatim (default: the protocol's error JSON around `message`). */
  body?: string;
  toolsUnsupported?: boolean;
  breakAfter?: number;
  hangAfter?: number;
  hang?: boolean;
  errorEventAfter?: number;
  raw?: string[];
}

export type Protocol = "openai" | "responses" | "anthropic" | "ollama";

export interface RecordedRequest {
  method: string;
  path: string;
  protocol: Protocol;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined for GET or a body that is not JSON). */
  body: any;
  /** performance.now() when the request's headers arrived (the start of the request). */
  receivedAt: number;
  /** performance.now() when the last byte of the answer was handed to the socket (undefined until then). */
  answeredAt?: number;
}

export type ScriptEntry = LlmReply | ((req: RecordedRequest) => LlmReply);

export interface ServedModel {
  name: string;
  /** Ollama /api/show model_info "<arch>.context_length". */
  contextLength?: number;
  /** Ollama /api/show parameters "num_ctx N" (set in the Modelfile). */
  numCtx?: number;
  /** Reported in /v1/models as vLLM's max_model_len. */
  maxModelLen?: number;
  /** Ollama /api/show capabilities (default ["completion", "tools"]; a vision model adds "vision"). */
  capabilities?: string[];
}

/** Prompt-cache accounting of one Anthropic request (computed from its markers). */
export interface CacheUsage {
  read: number;
  written: number;
  input: number;
  /** How many cache_control markers the request carried. */
  breakpoints: number;
}

export interface LlmServer {
  /** Anthropic requests with cache_control markers, in order: what each read, wrote and paid in full. */
  readonly cacheLog: CacheUsage[];
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** url + "/v1": the base URL of an OpenAI-compatible client. (Ollama's native provider takes `url`.) */
  readonly openaiBaseUrl: string;
  /** The base URL of an Anthropic client (it appends /v1/messages itself). */
  readonly anthropicBaseUrl: string;
  readonly port: number;
  /** Every request received, in order (model calls, model lists, Ollama probes). */
  readonly requests: RecordedRequest[];
  /** Only the model calls (chat completions, messages, Ollama's /api/chat). */
  readonly completions: RecordedRequest[];
  /** Scripted replies not consumed yet. */
  readonly pending: number;
  /** Models listed by /api/tags and /v1/models, and described by /api/show. */
  models: ServedModel[];
  /** Appends replies to the queue. */
  script(...replies: ScriptEntry[]): void;
  /** Empties the queue and the request log. */
  reset(): void;
  /** Stops listening and destroys every open connection (hung ones included). */
  close(): Promise<void>;
}

export const reply = {
  text: (text: string | string[], extra: Partial<LlmReply> = {}): LlmReply => ({ text, ...extra }),
  toolCall: (name: string, args: Record<string, unknown> | string, extra: Partial<LlmReply> = {}): LlmReply => ({
    toolCalls: [{ name, arguments: args }],
    ...extra,
  }),
  error: (status: number, extra: Partial<LlmReply> = {}): LlmReply => ({ status, ...extra }),
  hang: (): LlmReply => ({ hang: true }),
  toolsUnsupported: (): LlmReply => ({ toolsUnsupported: true }),
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

function pieces(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  return Array.isArray(text) ? text : splitWords(text);
}

/** `text` cut into `n` nearly equal pieces (at least one; empty text gives one empty piece). */
function fragment(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length || 1));
  const size = Math.ceil(text.length / count) || 1;
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

function argumentText(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

function estimateUsage(body: any, r: LlmReply): ScriptedUsage {
  const out = pieces(r.text).join("") + pieces(r.reasoning).join("") + (r.toolCalls ?? []).map(argumentText).join("");
  return { input: Math.ceil(JSON.stringify(body?.messages ?? "").length / 4), output: Math.ceil(out.length / 4) };
}

/** Writes SSE events with the reply's pacing and failure modes; resolves false when the script cut the stream. */
class EventWriter {
  private sent = 0;
  stopped = false;
  constructor(
    private readonly res: http.ServerResponse,
    private readonly r: LlmReply,
    private readonly errorEvent: () => string,
  ) {}

  async send(frame: string): Promise<void> {
    if (this.stopped) return;
    const { breakAfter, hangAfter, errorEventAfter } = this.r;
    if (breakAfter !== undefined && this.sent >= breakAfter) {
      this.stopped = true;
      // Let the bytes already written reach the client, then cut the connection mid-body.
      await sleep(20);
      this.res.socket?.destroy();
      return;
    }
    if (hangAfter !== undefined && this.sent >= hangAfter) {
      this.stopped = true;
      return;
    }
    if (errorEventAfter !== undefined && this.sent >= errorEventAfter) {
      this.stopped = true;
      this.res.end(this.errorEvent());
      return;
    }
    if (this.sent > 0 && this.r.chunkDelayMs) await sleep(this.r.chunkDelayMs);
    this.res.write(frame);
    this.sent++;
  }
}

function sseHeaders(res: http.ServerResponse) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
}

function sendError(res: http.ServerResponse, protocol: Protocol, r: LlmReply, model: string) {
  const status = r.toolsUnsupported ? 400 : (r.status ?? 500);
  const message = r.toolsUnsupported
    ? `registry.ollama.ai/library/${model} does not support tools`
    : (r.message ?? (status === 429 ? "Rate limit reached, please retry later" : `scripted error ${status}`));
  let body = r.body;
  if (body === undefined) {
    if (protocol === "ollama") {
      body = JSON.stringify({ error: message });
    } else if (protocol === "anthropic") {
      const type =
        status === 429
          ? "rate_limit_error"
          : status === 529
            ? "overloaded_error"
            : status >= 500
              ? "api_error"
              : status === 401
                ? "authentication_error"
                : status === 404
                  ? "not_found_error"
                  : "invalid_request_error";
      body = JSON.stringify({ type: "error", error: { type, message } });
    } else {
      body = JSON.stringify({
        error: { message, type: status >= 500 ? "api_error" : "invalid_request_error", param: null, code: null },
      });
    }
  }
  res.writeHead(status, { "content-type": "application/json", ...(r.headers ?? {}) });
  res.end(body);
}

async function answerOpenAI(req: RecordedRequest, res: http.ServerResponse, r: LlmReply) {
  const body = req.body ?? {};
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = String(body.model ?? "model");
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const calls = (r.toolCalls ?? []).map((c, i) => ({ ...c, id: c.id ?? `call_${i + 1}` }));
  const finish = r.finish ?? (calls.length ? "tool_calls" : "stop");
  const usage = r.usage === false ? undefined : (r.usage ?? estimateUsage(body, r));
  const usageJson = usage && {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
    ...(usage.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoning } } : {}),
  };

  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: pieces(r.text).join("") || null,
              ...(calls.length
                ? {
                    tool_calls: calls.map((c) => ({
                      id: c.id,
                      type: "function",
                      function: { name: c.name, arguments: argumentText(c) },
                    })),
                  }
                : {}),
            },
            finish_reason: finish,
          },
        ],
        usage: usageJson,
      }),
    );
    return;
  }

  sseHeaders(res);
  const w = new EventWriter(
    res,
    r,
    () =>
      `data: ${JSON.stringify({ error: { message: r.message ?? "scripted in-stream error", type: "server_error" } })}\n\n`,
  );
  if (r.raw) {
    for (const line of r.raw) await w.send(`data: ${line}\n\n`);
  } else {
    await w.send(chunk({ role: "assistant", content: "" }));
    const field = r.reasoningField ?? "reasoning_content";
    for (const p of pieces(r.reasoning)) await w.send(chunk({ [field]: p }));
    for (const p of pieces(r.text)) await w.send(chunk({ content: p }));
    for (const [index, c] of calls.entries()) {
      const frags = fragment(argumentText(c), c.fragments ?? 3);
      await w.send(
        chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
      );
      for (const f of frags) await w.send(chunk({ tool_calls: [{ index, function: { arguments: f } }] }));
    }
    await w.send(chunk({}, finish));
    if (usageJson && body.stream_options?.include_usage) {
      await w.send(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: usageJson })}\n\n`,
      );
    }
  }
  await w.send("data: [DONE]\n\n");
  if (!w.stopped) res.end();
}

/**
 * OpenAI's Responses API, streamed as the API streams it (each event named by its type, with a
 * sequence number, no [DONE]): response.created, then per output item output_item.added, its
 * deltas and output_item.done (a reasoning item with its summary, a message, a function_call per
 * call), then response.completed (response.incomplete for finish "length"). A call to a tool the
 * request declares as `type: "custom"` (a freeform tool) comes as a custom_tool_call whose input
 * is the call's argument text. Without "stream": true, the final response object as JSON.
 */
async function answerResponses(req: RecordedRequest, res: http.ServerResponse, r: LlmReply) {
  const body = req.body ?? {};
  const model = String(body.model ?? "model");
  const rid = () => Math.random().toString(36).slice(2, 12);
  const id = `resp_${rid()}`;
  const created_at = Math.floor(Date.now() / 1000);
  const usage = r.usage === false ? undefined : (r.usage ?? estimateUsage({ messages: body.input }, r));
  const custom = new Set<string>(
    (body.tools ?? []).filter((t: any) => t?.type === "custom").map((t: any) => String(t.name)),
  );
  const incomplete = r.finish === "length";
  const response = (status: string, output: unknown[]) => ({
    id,
    object: "response",
    created_at,
    status,
    error: null,
    incomplete_details: incomplete && status !== "in_progress" ? { reason: "max_output_tokens" } : null,
    model,
    output,
    ...(usage && status !== "in_progress"
      ? {
          usage: {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached ?? 0 },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
            total_tokens: usage.input + usage.output,
          },
        }
      : {}),
  });
  const output: any[] = [];
  const reasoning = pieces(r.reasoning);
  if (r.reasoning !== undefined)
    output.push({
      id: `rs_${rid()}`,
      type: "reasoning",
      summary: reasoning.length ? [{ type: "summary_text", text: reasoning.join("") }] : [],
    });
  const text = pieces(r.text);
  if (text.length)
    output.push({
      id: `msg_${rid()}`,
      type: "message",
      status: "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: text.join("") }],
      role: "assistant",
    });
  for (const [i, c] of (r.toolCalls ?? []).entries()) {
    const call_id = c.id ?? `call_${i + 1}`;
    output.push(
      custom.has(c.name)
        ? {
            id: `ctc_${rid()}`,
            type: "custom_tool_call",
            status: "completed",
            call_id,
            name: c.name,
            input: argumentText(c),
          }
        : {
            id: `fc_${rid()}`,
            type: "function_call",
            status: "completed",
            arguments: argumentText(c),
            call_id,
            name: c.name,
          },
    );
  }
  const final = response(incomplete ? "incomplete" : "completed", output);
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(final));
    return;
  }

  sseHeaders(res);
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const w = new EventWriter(res, r, () =>
    ev("error", {
      error: {
        type: "server_error",
        code: "server_error",
        message: r.message ?? "scripted in-stream error",
        param: null,
      },
    }),
  );
  if (r.raw) {
    for (const line of r.raw) await w.send(`data: ${line}\n\n`);
    if (!w.stopped) res.end();
    return;
  }
  await w.send(ev("response.created", { response: response("in_progress", []) }));
  await w.send(ev("response.in_progress", { response: response("in_progress", []) }));
  for (const [output_index, item] of output.entries()) {
    const item_id = item.id;
    if (item.type === "reasoning") {
      await w.send(ev("response.output_item.added", { output_index, item: { ...item, summary: [] } }));
      if (item.summary.length) {
        const part = { type: "summary_text", text: "" };
        await w.send(ev("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part }));
        for (const delta of reasoning)
          await w.send(ev("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta }));
        const done = item.summary[0].text;
        await w.send(
          ev("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: done }),
        );
        await w.send(
          ev("response.reasoning_summary_part.done", {
            item_id,
            output_index,
            summary_index: 0,
            part: { ...part, text: done },
          }),
        );
      }
    } else if (item.type === "message") {
      await w.send(
        ev("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        }),
      );
      const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
      await w.send(ev("response.content_part.added", { item_id, output_index, content_index: 0, part }));
      for (const delta of text)
        await w.send(
          ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] }),
        );
      const done = item.content[0].text;
      await w.send(
        ev("response.output_text.done", { item_id, output_index, content_index: 0, text: done, logprobs: [] }),
      );
      await w.send(
        ev("response.content_part.done", { item_id, output_index, content_index: 0, part: { ...part, text: done } }),
      );
    } else {
      const isCustom = item.type === "custom_tool_call";
      const full: string = isCustom ? item.input : item.arguments;
      const call = r.toolCalls![output.filter((o) => o.type !== "reasoning" && o.type !== "message").indexOf(item)];
      await w.send(
        ev("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", ...(isCustom ? { input: "" } : { arguments: "" }) },
        }),
      );
      const kind = isCustom ? "custom_tool_call_input" : "function_call_arguments";
      for (const delta of fragment(full, call.fragments ?? 3))
        await w.send(ev(`response.${kind}.delta`, { item_id, output_index, delta }));
      await w.send(ev(`response.${kind}.done`, { item_id, output_index, [isCustom ? "input" : "arguments"]: full }));
    }
    await w.send(ev("response.output_item.done", { output_index, item }));
  }
  await w.send(ev(incomplete ? "response.incomplete" : "response.completed", { response: final }));
  if (!w.stopped) res.end();
}

/** Anthropic's documented lookback: a breakpoint finds cache entries up to this many blocks before it. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** The prompt's blocks in cache order (tools, system, messages), each as JSON without its cache_control, and which carry one. */
function promptBlocks(body: any): Array<{ json: string; marked: boolean }> {
  const out: Array<{ json: string; marked: boolean }> = [];
  const add = (where: string, block: any) => {
    const marked = !!block && typeof block === "object" && "cache_control" in block;
    const plain = marked ? Object.fromEntries(Object.entries(block).filter(([k]) => k !== "cache_control")) : block;
    out.push({ json: `${where}:${JSON.stringify(plain)}`, marked });
  };
  for (const t of body?.tools ?? []) add("tool", t);
  if (typeof body?.system === "string") add("system", { type: "text", text: body.system });
  else for (const b of body?.system ?? []) add("system", b);
  for (const [i, m] of (body?.messages ?? []).entries()) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    // A block belongs to its message: the same block in another message (or role) is another prefix.
    for (const [j, b] of content.entries()) add(`${i}:${m.role}:${j}`, b);
  }
  return out;
}

/** Reads and writes the prompt cache for one request, per the rule at the top of this file. */
export class PromptCacheModel {
  private readonly entries = new Set<string>();
  constructor(readonly minTokens = 1024) {}

  account(body: any): CacheUsage {
    const blocks = promptBlocks(body);
    const hashes: string[] = [];
    const tokens: number[] = [];
    const h = createHash("sha256");
    let chars = 0;
    for (const b of blocks) {
      h.update(b.json);
      hashes.push(h.copy().digest("hex"));
      chars += b.json.length;
      tokens.push(Math.ceil(chars / 4));
    }
    const total = tokens.at(-1) ?? 0;
    const marks = blocks.flatMap((b, i) => (b.marked ? [i] : []));
    let hit = -1;
    for (const m of marks) {
      for (let j = m; j >= Math.max(0, m - CACHE_LOOKBACK_BLOCKS); j--) {
        if (this.entries.has(hashes[j])) {
          hit = Math.max(hit, j);
          break;
        }
      }
    }
    const read = hit >= 0 ? tokens[hit] : 0;
    for (const m of marks) if (tokens[m] >= this.minTokens) this.entries.add(hashes[m]);
    const last = marks.length ? marks[marks.length - 1] : -1;
    const written = last > hit && tokens[last] >= this.minTokens ? tokens[last] - read : 0;
    return { read, written, input: total - read - written, breakpoints: marks.length };
  }
}

async function answerAnthropic(req: RecordedRequest, res: http.ServerResponse, r: LlmReply, cache?: CacheUsage) {
  const body = req.body ?? {};
  const model = String(body.model ?? "model");
  const usage =
    r.usage === false
      ? { input: 0, output: 0 }
      : (r.usage ??
        (cache
          ? {
              input: cache.input + cache.read + cache.written,
              cached: cache.read,
              output: estimateUsage(body, r).output,
            }
          : estimateUsage(body, r)));
  const written = r.usage === undefined && cache ? cache.written : 0;
  const calls = (r.toolCalls ?? []).map((c, i) => ({ ...c, id: c.id ?? `toolu_${i + 1}` }));
  const stop = r.finish ?? (calls.length ? "tool_use" : "end_turn");
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

  sseHeaders(res);
  const w = new EventWriter(res, r, () =>
    ev("error", { error: { type: "overloaded_error", message: r.message ?? "Overloaded" } }),
  );
  await w.send(
    ev("message_start", {
      message: {
        id: `msg_${Math.random().toString(36).slice(2, 10)}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input - (usage.cached ?? 0) - written,
          cache_read_input_tokens: usage.cached ?? 0,
          cache_creation_input_tokens: written,
          output_tokens: 1,
        },
      },
    }),
  );
  let index = 0;
  const reasoning = pieces(r.reasoning);
  if (r.reasoning !== undefined) {
    // An empty reasoning is a block with no thinking text, only its signature.
    await w.send(
      ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }),
    );
    for (const p of reasoning)
      await w.send(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } }));
    await w.send(
      ev("content_block_delta", { index, delta: { type: "signature_delta", signature: r.signature ?? "sig-test" } }),
    );
    await w.send(ev("content_block_stop", { index }));
    index++;
  }
  for (const data of r.redactedThinking ?? []) {
    await w.send(ev("content_block_start", { index, content_block: { type: "redacted_thinking", data } }));
    await w.send(ev("content_block_stop", { index }));
    index++;
  }
  const text = pieces(r.text);
  if (text.length) {
    await w.send(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    await w.send(ev("ping", {}));
    for (const p of text) await w.send(ev("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
    await w.send(ev("content_block_stop", { index }));
    index++;
  }
  for (const c of calls) {
    await w.send(
      ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }),
    );
    for (const f of fragment(argumentText(c), c.fragments ?? 3)) {
      await w.send(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: f } }));
    }
    await w.send(ev("content_block_stop", { index }));
    index++;
  }
  await w.send(
    ev("message_delta", {
      delta: {
        stop_reason: stop,
        stop_sequence: null,
        ...(r.stopDetails ? { stop_details: { type: stop, explanation: r.stopDetails } } : {}),
      },
      usage: {
        output_tokens: usage.output,
        ...(usage.reasoning !== undefined ? { output_tokens_details: { thinking_tokens: usage.reasoning } } : {}),
      },
    }),
  );
  await w.send(ev("message_stop", {}));
  if (!w.stopped) res.end();
}

async function answerOllamaChat(req: RecordedRequest, res: http.ServerResponse, r: LlmReply) {
  const body = req.body ?? {};
  const model = String(body.model ?? "model");
  const usage = r.usage === false ? undefined : (r.usage ?? estimateUsage(body, r));
  const line = (data: Record<string, unknown>) =>
    `${JSON.stringify({ model, created_at: new Date().toISOString(), ...data })}\n`;
  const msg = (m: Record<string, unknown>) => line({ message: { role: "assistant", content: "", ...m }, done: false });
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  res.flushHeaders();
  const w = new EventWriter(res, r, () => `${JSON.stringify({ error: r.message ?? "scripted in-stream error" })}\n`);
  if (r.raw) {
    for (const l of r.raw) await w.send(`${l}\n`);
  } else {
    for (const p of pieces(r.reasoning)) await w.send(msg({ thinking: p }));
    for (const p of pieces(r.text)) await w.send(msg({ content: p }));
    const calls = r.toolCalls ?? [];
    if (calls.length) {
      const asObject = (c: ScriptedToolCall): unknown => {
        if (typeof c.arguments !== "string") return c.arguments;
        try {
          return JSON.parse(c.arguments);
        } catch {
          return c.arguments;
        }
      };
      await w.send(
        msg({
          tool_calls: calls.map((c, index) => ({
            ...(c.id ? { id: c.id } : {}),
            function: { index, name: c.name, arguments: asObject(c) },
          })),
        }),
      );
    }
    await w.send(
      line({
        message: { role: "assistant", content: "" },
        done: true,
        done_reason: r.finish ?? "stop",
        total_duration: 1,
        ...(usage ? { prompt_eval_count: usage.input, eval_count: usage.output } : {}),
        ...(usage?.cached !== undefined ? { prompt_eval_cached_count: usage.cached } : {}),
      }),
    );
  }
  if (!w.stopped) res.end();
}

function answerOllama(req: RecordedRequest, res: http.ServerResponse, models: ServedModel[]) {
  const json = (status: number, data: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(data));
  };
  if (req.path === "/api/version") return json(200, { version: "0.12.0" });
  if (req.path === "/api/tags") {
    return json(200, {
      models: models.map((m) => ({
        name: m.name,
        model: m.name,
        modified_at: "2025-01-01T00:00:00Z",
        size: 1,
        digest: "0",
        details: { family: "qwen2" },
      })),
    });
  }
  if (req.path === "/api/show") {
    const name = String(req.body?.model ?? req.body?.name ?? "");
    const m = models.find((x) => x.name === name || x.name === `${name}:latest`);
    if (!m) return json(404, { error: `model '${name}' not found` });
    return json(200, {
      parameters: m.numCtx
        ? `num_ctx                        ${m.numCtx}\nstop                           "<|im_end|>"`
        : `stop                           "<|im_end|>"`,
      details: { family: "qwen2" },
      model_info: {
        "general.architecture": "qwen2",
        ...(m.contextLength ? { "qwen2.context_length": m.contextLength } : {}),
      },
      capabilities: m.capabilities ?? ["completion", "tools"],
    });
  }
  json(404, { error: "not found" });
}

function protocolOf(method: string, path: string, headers: http.IncomingHttpHeaders): Protocol | undefined {
  if (path.startsWith("/api/")) return "ollama";
  if (method === "POST" && path.endsWith("/chat/completions")) return "openai";
  if (method === "POST" && path.endsWith("/responses")) return "responses";
  if (method === "POST" && path === "/v1/messages") return "anthropic";
  if (method === "GET" && path.endsWith("/models")) return headers["anthropic-version"] ? "anthropic" : "openai";
  return undefined;
}

export interface LlmServerOptions {
  /** Models listed and described (default: one "test-model" with a 32768-token context). */
  models?: ServedModel[];
  /** When set, every request must carry this key (Authorization: Bearer, or x-api-key), else 401. */
  requireKey?: string;
  /** Answer every Ollama-native path (/api/...) with a plain 404, like a server that speaks only the OpenAI-compatible protocol. */
  openaiOnly?: boolean;
  /** Anthropic prompt cache: the fewest tokens a prefix must have to be cached (default 1024). */
  cacheMinTokens?: number;
}

export async function startLlmServer(opts: LlmServerOptions = {}): Promise<LlmServer> {
  const queue: ScriptEntry[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { models: opts.models ?? [{ name: "test-model", contextLength: 32768 }] };
  const promptCache = new PromptCacheModel(opts.cacheMinTokens);
  const cacheLog: CacheUsage[] = [];

  const server = http.createServer(async (req, res) => {
    const receivedAt = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "/").split("?")[0];
    const method = req.method ?? "GET";
    const protocol = protocolOf(method, path, req.headers);
    const recorded: RecordedRequest = {
      method,
      path,
      protocol: protocol ?? "openai",
      headers: req.headers,
      body,
      receivedAt,
    };
    res.on("finish", () => {
      recorded.answeredAt = performance.now();
    });
    requests.push(recorded);
    if (opts.requireKey !== undefined) {
      const given =
        protocol === "anthropic"
          ? req.headers["x-api-key"]
          : String(req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
      if (given !== opts.requireKey)
        return sendError(
          res,
          protocol ?? "openai",
          { status: 401, message: protocol === "anthropic" ? "invalid x-api-key" : "Incorrect API key provided" },
          "",
        );
    }
    if (!protocol || (opts.openaiOnly && path.startsWith("/api/"))) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `llm-server: no route for ${method} ${path}` } }));
      return;
    }
    if (protocol === "ollama" && !(method === "POST" && path === "/api/chat"))
      return answerOllama(recorded, res, state.models);
    if (method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      const data =
        protocol === "anthropic"
          ? {
              data: state.models.map((m) => ({
                id: m.name,
                type: "model",
                display_name: m.name,
                created_at: "2025-01-01T00:00:00Z",
              })),
              has_more: false,
              first_id: null,
              last_id: null,
            }
          : {
              object: "list",
              data: state.models.map((m) => ({
                id: m.name,
                object: "model",
                owned_by: "test",
                ...(m.maxModelLen ? { max_model_len: m.maxModelLen } : {}),
              })),
            };
      res.end(JSON.stringify(data));
      return;
    }
    let cache: CacheUsage | undefined;
    if (protocol === "anthropic") {
      const marked = promptBlocks(body).filter((b) => b.marked).length;
      if (marked > 4) {
        // The API's own answer to a fifth marker.
        return sendError(
          res,
          protocol,
          { status: 400, message: `A maximum of 4 blocks with cache_control may be provided. Found ${marked}.` },
          "",
        );
      }
      if (marked > 0) cacheLog.push((cache = promptCache.account(body)));
    }
    const entry = queue.shift();
    if (!entry) {
      sendError(res, protocol, { status: 500, message: "llm-server: no scripted reply left" }, "");
      return;
    }
    const r = typeof entry === "function" ? entry(recorded) : entry;
    if (r.hang) return; // never answered; close() destroys the socket
    if (r.delayMs) await sleep(r.delayMs);
    if (r.status !== undefined || r.toolsUnsupported)
      return sendError(res, protocol, r, String((body as any)?.model ?? "model"));
    try {
      if (protocol === "anthropic") await answerAnthropic(recorded, res, r, cache);
      else if (protocol === "ollama") await answerOllamaChat(recorded, res, r);
      else if (protocol === "responses") await answerResponses(recorded, res, r);
      else await answerOpenAI(recorded, res, r);
    } catch {
      // The client went away mid-answer (aborted, timed out): nothing to do.
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    port,
    requests,
    cacheLog,
    get completions() {
      return requests.filter((r) => r.method === "POST" && (r.protocol !== "ollama" || r.path === "/api/chat"));
    },
    get pending() {
      return queue.length;
    },
    get models() {
      return state.models;
    },
    set models(m: ServedModel[]) {
      state.models = m;
    },
    script: (...replies) => void queue.push(...replies),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      cacheLog.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
