// The wire-format pieces of the provider layer, as invariants over many
// generated cases: SSE framing under any chunking, content parts of any shape,
// reasoning round-trips per provider, error classification by what an error
// says, sampling parameters, Ollama's think levels.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sseEvents } from "../../src/agent/providers/sse.ts";
import { contentParts, OpenAIChunkAssembler, toOpenAIMessages } from "../../src/agent/providers/openaiMessages.ts";
import { AnthropicEventAssembler, toAnthropicMessages } from "../../src/agent/providers/anthropicMessages.ts";
import { classifyError, describeBody, rejectedSamplingParameter } from "../../src/agent/providers/errors.ts";
import { refusesSampling, withSamplingFallback } from "../../src/agent/providers/sampling.ts";
import { DEFAULT_RETRY, retryDelay } from "../../src/agent/providers/retry.ts";
import { ProviderError, type ChatMessage, type StreamPart } from "../../src/agent/providers/types.ts";
import { ProviderConfigSchema } from "../../src/base/config.ts";

/** A small deterministic generator (tests must be repeatable). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    yield bytes.subarray(at, c);
    at = c;
  }
}

describe("SSE framing", () => {
  test("the same events whatever the chunking: CRLF split across chunks, multi-byte characters cut, comments, multi-line data", async () => {
    const body =
      ": OPENROUTER PROCESSING\r\n\r\n" +
      'event: message_start\r\ndata: {"a":"é€😀"}\r\n\r\n' +
      "data: line one\ndata: line two\n\n" +
      'event: error\rdata: {"error":{"code":400}}\r\r' +
      "data: [DONE]\n\n" +
      "data: last without blank line";
    const expected = [
      { event: "message_start", data: '{"a":"é€😀"}' },
      { data: "line one\nline two" },
      { event: "error", data: '{"error":{"code":400}}' },
      { data: "[DONE]" },
      { data: "last without blank line" },
    ];
    const bytes = new TextEncoder().encode(body);
    const whole: unknown[] = [];
    for await (const ev of sseEvents(chunked(bytes, []))) whole.push(ev);
    assert.deepEqual(whole, expected);
    const rand = rng(7);
    for (let n = 0; n < 300; n++) {
      const cuts = [
        ...new Set(Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * bytes.length))),
      ].sort((a, b) => a - b);
      const got: unknown[] = [];
      for await (const ev of sseEvents(chunked(bytes, cuts))) got.push(ev);
      assert.deepEqual(got, expected, `cuts ${cuts.join(",")}`);
    }
  });
});

describe("content parts", () => {
  test("any mix of documented parts becomes text and reasoning in order; unknown parts come back verbatim, never as text", () => {
    const rand = rng(11);
    const words = ["a", "b c", "é", "{}", "[object Object]?", " ", "\n"];
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    for (let n = 0; n < 500; n++) {
      const parts: unknown[] = [];
      let text = "";
      let reasoning = "";
      const unknown: unknown[] = [];
      for (let i = Math.floor(rand() * 6); i > 0; i--) {
        const w = pick(words);
        switch (Math.floor(rand() * 5)) {
          case 0:
            parts.push({ type: "text", text: w });
            text += w;
            break;
          case 1:
            parts.push({ type: "thinking", thinking: [{ type: "text", text: w }] }); // Mistral
            reasoning += w;
            break;
          case 2:
            parts.push({ type: "thinking", thinking: w });
            reasoning += w;
            break;
          case 3: {
            const u = { type: "image_url", image_url: { url: `data:${w}` } };
            parts.push(u);
            unknown.push(u);
            break;
          }
          default:
            parts.push(w);
            text += w;
        }
      }
      const got = contentParts(parts);
      assert.equal(got.text, text);
      assert.equal(got.reasoning, reasoning);
      assert.deepEqual(got.unknown, unknown);
    }
    assert.deepEqual(contentParts(null), { text: "", reasoning: "", unknown: [] });
    assert.deepEqual(contentParts("plain"), { text: "plain", reasoning: "", unknown: [] });
  });

  test("an assembled answer keeps unknown parts as native parts; the text never holds them", () => {
    const a = new OpenAIChunkAssembler();
    const parts = [
      ...a.push({
        choices: [
          {
            delta: {
              content: [
                { type: "thinking", thinking: [{ type: "text", text: "hm" }] },
                { type: "text", text: "Hi" },
                { type: "audio", data: "AAA" },
              ],
            },
          },
        ],
      }),
      ...a.push({ choices: [{ delta: {}, finish_reason: "stop" }] }),
      ...a.end(),
    ];
    assert.deepEqual(parts, [
      { type: "reasoning", delta: "hm" },
      { type: "text", delta: "Hi" },
      { type: "native", native: { unknownParts: [{ type: "audio", data: "AAA" }] } },
      { type: "finish", reason: "stop", raw: "stop" },
    ]);
  });
});

describe("reasoning round-trips", () => {
  const call = (id: string) => ({ id, name: "read", arguments: '{"path":"a"}' });
  const conversation = (
    field: "reasoning_content" | "reasoning",
    details?: Array<Record<string, unknown>>,
  ): ChatMessage[] => [
    { role: "system", content: "s" },
    { role: "user", content: "one" },
    {
      role: "assistant",
      content: "",
      reasoning: "r1",
      toolCalls: [call("c1")],
      native: { reasoningField: field, ...(details ? { reasoningDetails: details } : {}) },
    },
    { role: "tool", toolCallId: "c1", name: "read", content: "A" },
    { role: "assistant", content: "done", reasoning: "r2", native: { reasoningField: field } },
    { role: "user", content: "two" },
    { role: "assistant", content: "hi", reasoning: "r3", native: { reasoningField: field } },
    { role: "user", content: "three" },
  ];

  test("chat completions: reasoning goes back in its own field on the assistant messages of a user turn with tool calls, only there", () => {
    for (const field of ["reasoning_content", "reasoning"] as const) {
      const out = toOpenAIMessages(conversation(field)).filter((m) => m.role === "assistant");
      assert.deepEqual(
        out.map((m) => (m as Record<string, unknown>)[field]),
        ["r1", "r2", undefined],
        field,
      );
      const other = field === "reasoning" ? "reasoning_content" : "reasoning";
      assert.ok(out.every((m) => !(other in m)));
    }
    // A reasoning that came from another provider has no field: it is not sent to this one.
    const foreign = conversation("reasoning_content").map((m) =>
      m.role === "assistant" ? { ...m, native: undefined } : m,
    );
    assert.ok(toOpenAIMessages(foreign).every((m) => !("reasoning_content" in m) && !("reasoning" in m)));
  });

  test("OpenRouter: reasoning_details merged over the stream by index, and sent back unchanged", () => {
    const a = new OpenAIChunkAssembler();
    const d = (x: object) => ({ choices: [{ delta: { reasoning: "", reasoning_details: [x] } }] });
    a.push(d({ type: "reasoning.text", text: "We ", index: 0, format: "anthropic-claude-v1" }));
    a.push(d({ type: "reasoning.text", text: "need", index: 0, format: "anthropic-claude-v1" }));
    a.push(d({ type: "reasoning.text", signature: "SIG", index: 0, format: "anthropic-claude-v1" }));
    a.push(d({ type: "reasoning.encrypted", data: "ENC", index: 1 }));
    a.push({
      choices: [
        {
          delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "read", arguments: "{}" } }] },
          finish_reason: "tool_calls",
        },
      ],
    });
    const native = a.end().find((p) => p.type === "native");
    const details = native?.type === "native" ? native.native.reasoningDetails : undefined;
    assert.deepEqual(details, [
      { type: "reasoning.text", text: "We need", index: 0, format: "anthropic-claude-v1", signature: "SIG" },
      { type: "reasoning.encrypted", data: "ENC", index: 1 },
    ]);
    const sent = toOpenAIMessages(conversation("reasoning", details))[2] as Record<string, unknown>;
    assert.deepEqual(sent.reasoning_details, details);
  });

  test("Anthropic: kept blocks go back in order (signed thinking, empty-text thinking, redacted); unsigned thinking and unknown blocks stay out; a note goes in its own text block", () => {
    const msg: ChatMessage = {
      role: "assistant",
      content: "Answer.\n\n[rt: this answer was cut off at the output limit (length)]",
      toolCalls: [{ id: "t1", name: "read", arguments: '{"path":"a"}' }],
      native: {
        anthropic: [
          { type: "thinking", thinking: "", signature: "S1" },
          { type: "redacted_thinking", data: "R1" },
          { type: "fallback", from: { model: "a" }, to: { model: "b" } },
          { type: "text", text: "Answer." },
          { type: "tool_use", id: "t1", name: "read", input: { path: "a" } },
          { type: "thinking", thinking: "half", signature: "" },
        ],
      },
    };
    const { messages } = toAnthropicMessages([
      { role: "user", content: "q" },
      msg,
      { role: "tool", toolCallId: "t1", name: "read", content: "A" },
    ]);
    assert.deepEqual(messages[1].content, [
      { type: "thinking", thinking: "", signature: "S1" },
      { type: "redacted_thinking", data: "R1" },
      { type: "text", text: "Answer." },
      { type: "text", text: "[rt: this answer was cut off at the output limit (length)]" },
      { type: "tool_use", id: "t1", name: "read", input: { path: "a" } },
    ]);
  });

  test("Anthropic: the assembler keeps every block of the answer in order, server blocks verbatim, and counts thinking tokens", () => {
    const a = new AnthropicEventAssembler();
    const parts: StreamPart[] = [];
    const push = (ev: object) => parts.push(...a.push(ev as never));
    push({
      type: "message_start",
      message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } },
    });
    push({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
    push({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "SIG" } });
    push({ type: "content_block_stop", index: 0 });
    push({ type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "RED" } });
    push({ type: "content_block_stop", index: 1 });
    push({
      type: "content_block_start",
      index: 2,
      content_block: { type: "server_tool_use", id: "s1", name: "advisor", input: {} },
    });
    push({ type: "content_block_stop", index: 2 });
    push({ type: "content_block_start", index: 3, content_block: { type: "text", text: "" } });
    push({ type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "4" } });
    push({ type: "content_block_stop", index: 3 });
    push({
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 20, output_tokens_details: { thinking_tokens: 12 } },
    });
    push({ type: "message_stop" });
    parts.push(...a.end());
    assert.deepEqual(parts.filter((p) => p.type === "usage").at(-1), {
      type: "usage",
      usage: { inputTokens: 15, outputTokens: 20, cachedInputTokens: 5, reasoningTokens: 12 },
    });
    assert.deepEqual(
      parts.find((p) => p.type === "native"),
      {
        type: "native",
        native: {
          anthropic: [
            { type: "thinking", thinking: "", signature: "SIG" },
            { type: "redacted_thinking", data: "RED" },
            { type: "server_tool_use", id: "s1", name: "advisor", input: {} },
            { type: "text", text: "4" },
          ],
        },
      },
    );
    assert.deepEqual(parts.at(-1), { type: "finish", reason: "stop", raw: "end_turn" });
  });
});

describe("errors are classified by what they say, not where they arrive", () => {
  const ctx = { target: "P", model: "m", withTools: false };
  const cases: Array<[string, unknown, string, boolean]> = [
    // [what, the error, kind, retried before any answer]
    ["OpenRouter 400 in a stream", { error: { code: 400, message: "Token limit reached" } }, "bad_request", false],
    ["OpenRouter 502 in a stream", { error: { code: 502, message: "Provider returned error" } }, "server", true],
    [
      "Anthropic overloaded_error event",
      { error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      "server",
      true,
    ],
    [
      "Anthropic api_error event",
      { error: { type: "error", error: { type: "api_error", message: "Internal server error" } } },
      "server",
      true,
    ],
    [
      "Anthropic invalid_request_error event",
      { error: { type: "error", error: { type: "invalid_request_error", message: "bad" } } },
      "bad_request",
      false,
    ],
    [
      "Groq tool_use_failed event",
      {
        error: {
          message: "Tool call validation failed",
          type: "invalid_request_error",
          code: "tool_use_failed",
          status_code: 400,
        },
      },
      "bad_request",
      false,
    ],
    [
      "OpenAI server_error in a stream",
      { error: { message: "The server had an error", type: "server_error" } },
      "server",
      true,
    ],
    [
      "OpenAI rate limit in a stream, no Retry-After",
      { error: { message: "slow down", type: "rate_limit_error" } },
      "rate_limit",
      false,
    ],
    ["Ollama's bare string", { error: "an error was encountered while running the model" }, "stream_error", false],
    ["HTTP 400", { status: 400, error: { message: "bad", type: "invalid_request_error" } }, "bad_request", false],
    [
      "HTTP 429 without Retry-After (a quota)",
      {
        status: 429,
        error: { message: "You exceeded your current quota", code: "insufficient_quota" },
        headers: new Headers(),
      },
      "rate_limit",
      false,
    ],
    [
      "HTTP 429 with Retry-After",
      { status: 429, error: { message: "Rate limit" }, headers: new Headers({ "retry-after": "1" }) },
      "rate_limit",
      true,
    ],
    [
      "HTTP 529",
      { status: 529, error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      "server",
      true,
    ],
    ["HTTP 503", { status: 503, error: { message: "unavailable" } }, "server", true],
    ["HTTP 409", { status: 409, error: { message: "conflict" } }, "bad_request", false],
    ["a reset connection", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), "stream_broken", true],
  ];
  for (const [what, err, kind, retried] of cases) {
    test(what, () => {
      const e = classifyError(err, ctx);
      assert.equal(e.kind, kind, e.message);
      assert.equal(retryDelay(e, 0, DEFAULT_RETRY) !== undefined, retried, `retried: ${e.message}`);
      const said = describeBody((err as { error?: unknown }).error).message;
      if (said) assert.ok(e.message.includes(`"${said}"`), `the provider's words, quoted: ${e.message}`);
    });
  }
});

describe("sampling parameters", () => {
  test("the documented refusers: OpenAI reasoning models (also behind OpenRouter), Claude 4.7 and later", () => {
    for (const m of [
      "o1",
      "o3-mini",
      "o4-mini-2025-04-16",
      "gpt-5",
      "gpt-5-mini",
      "gpt-5.2-chat-latest",
      "openai/o3",
      "openai/gpt-5",
      "claude-opus-4-7",
      "anthropic/claude-opus-4.8",
      "claude-fable-5",
      "claude-sonnet-5-1",
    ]) {
      assert.ok(refusesSampling(m), m);
    }
    for (const m of [
      "gpt-4.1",
      "gpt-4o-mini",
      "o",
      "qwen2.5-coder:7b",
      "deepseek-chat",
      "claude-sonnet-4-5",
      "claude-opus-4-6",
      "mistral-small-latest",
      "llama3.2",
    ]) {
      assert.equal(refusesSampling(m), false, m);
    }
  });

  test("a 400 naming temperature (OpenAI's param, Anthropic's message) is answered by one retry without it, remembered for the model", async () => {
    assert.equal(
      rejectedSamplingParameter(
        describeBody({
          message: "Unsupported value: 'temperature' does not support 0.2 with this model.",
          param: "temperature",
        }),
      ),
      "temperature",
    );
    assert.equal(
      rejectedSamplingParameter(
        describeBody({
          type: "error",
          error: { type: "invalid_request_error", message: "`temperature` is deprecated for this model." },
        }),
      ),
      "temperature",
    );
    assert.equal(
      rejectedSamplingParameter(describeBody({ message: "Unsupported parameter: 'max_tokens'", param: "max_tokens" })),
      undefined,
    );
    const seen: Array<number | undefined> = [];
    const run = (req: { temperature?: number }) =>
      (async function* (): AsyncGenerator<StreamPart> {
        seen.push(req.temperature);
        if (req.temperature !== undefined)
          throw new ProviderError("400", "bad_request", 400, undefined, {
            message: "Unsupported value: 'temperature'",
            param: "temperature",
          });
        yield { type: "finish", reason: "stop" };
      })();
    const refused = new Set<string>();
    const drain = async (it: AsyncIterable<StreamPart>) => {
      for await (const _ of it);
    };
    await drain(withSamplingFallback({ model: "dep", messages: [], temperature: 0.2 }, refused, run));
    await drain(withSamplingFallback({ model: "dep", messages: [], temperature: 0.2 }, refused, run));
    assert.deepEqual(seen, [0.2, undefined, undefined]);
    // Another 400 is not retried.
    let calls = 0;
    const other = () =>
      (async function* (): AsyncGenerator<StreamPart> {
        calls++;
        throw new ProviderError("400", "bad_request", 400, undefined, {
          message: "Unsupported parameter: 'max_tokens'",
          param: "max_tokens",
        });
      })();
    await assert.rejects(drain(withSamplingFallback({ model: "x", messages: [], temperature: 0.2 }, new Set(), other)));
    assert.equal(calls, 1);
  });
});

describe("Ollama think", () => {
  test("a boolean or a documented level; anything else is a configuration error", () => {
    for (const ok of [true, false, "low", "medium", "high", "max"])
      assert.equal(ProviderConfigSchema.safeParse({ think: ok }).success, true, String(ok));
    for (const bad of ["extreme", 1, "HIGH"])
      assert.equal(ProviderConfigSchema.safeParse({ think: bad }).success, false, String(bad));
  });
});
