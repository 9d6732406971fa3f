// Stream shapes beyond one recording: <think> tags split anywhere in a stream (seeded
// invariant), the setting that turns them off, a tool-call-only chat stream that ends with
// [DONE] and no finish_reason (over a loopback server: handed out once, not retried), the
// Responses API's response.incomplete (its documented shape: no public recording of it was
// found), the Responses request built from a conversation, and OpenRouter's error metadata.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAIChunkAssembler, ThinkTagSplitter } from "../../src/agent/providers/openaiMessages.ts";
import { ResponsesEventAssembler, toResponsesInput } from "../../src/agent/providers/responsesMessages.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { needsResponsesApi } from "../../src/agent/providers/openaiResponses.ts";
import { classifyError, describeBody } from "../../src/agent/providers/errors.ts";
import { DEFAULT_RETRY, retryDelay } from "../../src/agent/providers/retry.ts";
import type { StreamPart } from "../../src/agent/providers/types.ts";

function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const joined = (parts: StreamPart[], type: "text" | "reasoning") =>
  parts
    .filter((p) => p.type === type)
    .map((p) => (p as { delta: string }).delta)
    .join("");

describe("<think> tags in the content", () => {
  test("however the stream is cut, the reasoning is what stands between the tags and the text what follows", () => {
    const rand = rng(31);
    const cases = [
      {
        content: "<think>\nOkay, the user says hi.\n</think>\n\nHello! 🌟",
        reasoning: "\nOkay, the user says hi.\n",
        text: "Hello! 🌟",
      },
      {
        content: "  <think>a < b, and </thin is not the end</think>answer",
        reasoning: "a < b, and </thin is not the end",
        text: "answer",
      },
      { content: "no tags here <think>x</think>", reasoning: "", text: "no tags here <think>x</think>" },
      { content: "<thinking is not the tag", reasoning: "", text: "<thinking is not the tag" },
      { content: "<think>never closed", reasoning: "never closed", text: "" },
      { content: "<think></think>", reasoning: "", text: "" },
    ];
    for (const c of cases) {
      for (let round = 0; round < 200; round++) {
        const splitter = new ThinkTagSplitter();
        let reasoning = "";
        let text = "";
        let rest = c.content;
        while (rest) {
          const n = 1 + Math.floor(rand() * 6);
          const out = splitter.push(rest.slice(0, n));
          rest = rest.slice(n);
          reasoning += out.reasoning;
          text += out.text;
        }
        const end = splitter.flush();
        reasoning += end.reasoning;
        text += end.text;
        assert.deepEqual([reasoning, text], [c.reasoning, c.text], `${JSON.stringify(c.content)} round ${round}`);
      }
    }
  });

  test("think_tags off: the content is text, tags and all", () => {
    const on = new OpenAIChunkAssembler();
    const off = new OpenAIChunkAssembler({ thinkTags: false });
    const chunk = { choices: [{ index: 0, delta: { content: "<think>hm</think>Hi" }, finish_reason: "stop" }] };
    const a = [...on.push(chunk), ...on.end()];
    const b = [...off.push(chunk), ...off.end()];
    assert.deepEqual([joined(a, "reasoning"), joined(a, "text")], ["hm", "Hi"]);
    assert.deepEqual([joined(b, "reasoning"), joined(b, "text")], ["", "<think>hm</think>Hi"]);
  });
});

describe("a chat stream that ends with [DONE] and no finish_reason", () => {
  test("tool calls only (Snowflake Cortex's shape): the calls are handed out once, finish tool_calls, no retry", async () => {
    const chunks = [
      {
        choices: [
          {
            index: 0,
            delta: {
              role: "assistant",
              content: "",
              tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } }],
            },
          },
        ],
      },
      {
        choices: [
          { index: 0, delta: { content: "", tool_calls: [{ index: 0, function: { arguments: '{"path":"a.txt"}' } }] } },
        ],
      },
      { choices: [], usage: { prompt_tokens: 22, completion_tokens: 5, total_tokens: 27 } },
    ];
    let requests = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      requests++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const provider = createOpenAICompatibleProvider({
        baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        retry: { baseDelayMs: 1 },
      });
      const parts: StreamPart[] = [];
      for await (const p of provider.stream({
        model: "claude-sonnet-4-6",
        messages: [{ role: "user", content: "read a.txt" }],
        tools: [{ name: "read", description: "r", parameters: { type: "object" } }],
      }))
        parts.push(p);
      assert.deepEqual(
        parts.filter((p) => p.type === "tool_call").map((p) => (p as { call: unknown }).call),
        [{ id: "call_1", name: "read", arguments: '{"path":"a.txt"}' }],
      );
      const finish = parts.at(-1)!;
      assert.deepEqual(finish, { type: "finish", reason: "tool_calls" }, "no finish word claimed for the provider");
      assert.equal(requests, 1, "not retried");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

test("a chat stream that ends with neither a finish_reason nor [DONE] broke off: what arrived is kept, the rest reported", async () => {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "half" } }] })}\n\n`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const provider = createOpenAICompatibleProvider({
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      retry: { maxRetries: 0 },
    });
    const parts: StreamPart[] = [];
    let error: unknown;
    try {
      for await (const p of provider.stream({ model: "m", messages: [{ role: "user", content: "hi" }] })) parts.push(p);
    } catch (e) {
      error = e;
    }
    assert.equal(joined(parts, "text"), "half");
    assert.equal((error as { kind?: string })?.kind, "stream_broken");
    assert.match((error as Error).message, /no finish_reason, no \[DONE\]/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

describe("the Responses API", () => {
  test("response.incomplete: max_output_tokens is a cut answer, content_filter a filtered one; a cut call stays a call", () => {
    const a = new ResponsesEventAssembler();
    const parts = [
      ...a.push({
        type: "response.output_item.added",
        item: { id: "fc_1", type: "function_call", call_id: "call_9", name: "edit", arguments: "" },
      }),
      ...a.push({ type: "response.function_call_arguments.delta", item_id: "fc_1", delta: '{"path":"a' }),
      ...a.push({
        type: "response.incomplete",
        response: {
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          usage: {
            input_tokens: 16,
            output_tokens: 16,
            input_tokens_details: { cached_tokens: 8 },
            output_tokens_details: { reasoning_tokens: 4 },
          },
        },
      }),
      ...a.end(),
    ];
    assert.deepEqual(
      parts.find((p) => p.type === "usage"),
      { type: "usage", usage: { inputTokens: 16, outputTokens: 16, cachedInputTokens: 8, reasoningTokens: 4 } },
    );
    assert.deepEqual(
      parts.find((p) => p.type === "tool_call"),
      { type: "tool_call", call: { id: "call_9", name: "edit", arguments: '{"path":"a' } },
    );
    assert.deepEqual(parts.at(-1), { type: "finish", reason: "length", raw: "max_output_tokens" });
    const f = new ResponsesEventAssembler();
    f.push({ type: "response.incomplete", response: { incomplete_details: { reason: "content_filter" } } });
    assert.deepEqual(f.end().at(-1), { type: "finish", reason: "content_filter", raw: "content_filter" });
  });

  test("the conversation as input items: instructions, reasoning items back verbatim, calls paired with their outputs, images after", () => {
    const { instructions, input } = toResponsesInput([
      { role: "system", content: "be brief" },
      { role: "user", content: "add" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "calc", arguments: '{"a":1}' }],
        native: {
          responses: [
            {
              id: "rs_1",
              type: "reasoning",
              encrypted_content: "gAAA",
              summary: [{ type: "summary_text", text: "s" }],
              status: "completed",
            },
          ],
        },
      },
      {
        role: "tool",
        toolCallId: "call_1",
        name: "calc",
        content: "2",
        images: [{ mediaType: "image/png", data: "AAAA", width: 1, height: 1 }],
      },
      { role: "assistant", content: "2" },
    ]);
    assert.equal(instructions, "be brief");
    assert.deepEqual(input, [
      { role: "user", content: "add" },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "s" }], encrypted_content: "gAAA" },
      { type: "function_call", call_id: "call_1", name: "calc", arguments: '{"a":1}' },
      { type: "function_call_output", call_id: "call_1", output: "2" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "The image returned by calc (tool call call_1):" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA" },
        ],
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "2" }] },
    ]);
  });

  test("the models served on the Responses API only are sent there; the others stay on chat completions", () => {
    for (const m of [
      "gpt-5-codex",
      "gpt-5.1-codex-max",
      "codex-mini-latest",
      "o3-pro",
      "o1-pro",
      "gpt-5-pro",
      "o3-deep-research",
      "o4-mini-deep-research",
      "computer-use-preview",
    ])
      assert.ok(needsResponsesApi(m), m);
    for (const m of ["gpt-4.1", "gpt-5", "gpt-5-mini", "o3", "o4-mini", "gpt-4o", undefined])
      assert.equal(needsResponsesApi(m), false, String(m));
  });
});

describe("a router's error details", () => {
  const recorded = {
    error: {
      code: 429,
      message: "Provider returned error",
      metadata: {
        provider_name: "Google",
        raw: "google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream. Please retry shortly",
      },
    },
  };

  test("OpenRouter's metadata: the upstream's words and name in the message; its rate limit retried with backoff", () => {
    const d = describeBody(recorded);
    assert.equal(d.provider, "Google");
    assert.match(
      d.message,
      /^Provider returned error \(Google: google\/gemini-2\.0-flash-exp:free is temporarily rate-limited upstream/,
    );
    const e = classifyError(
      { status: 429, error: recorded.error },
      { target: "OpenRouter", model: "m", withTools: false },
    );
    assert.equal(e.kind, "rate_limit");
    assert.equal(retryDelay(e, 0, DEFAULT_RETRY), DEFAULT_RETRY.baseDelayMs);
    // A 429 that is a quota (no upstream words, no Retry-After) is still not retried.
    const quota = classifyError(
      { status: 429, error: { error: { message: "You exceeded your current quota" } } },
      { target: "X", model: "m", withTools: false },
    );
    assert.equal(retryDelay(quota, 0, DEFAULT_RETRY), undefined);
  });

  test("raw as JSON text (an upstream error body) is read for its message", () => {
    const d = describeBody({
      error: {
        code: 400,
        message: "Provider returned error",
        metadata: {
          provider_name: "Anthropic",
          raw: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}',
        },
      },
    });
    assert.equal(d.message, "Provider returned error (Anthropic: prompt is too long)");
    assert.equal(d.status, 400);
  });
});
