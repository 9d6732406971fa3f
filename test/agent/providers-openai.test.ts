// The OpenAI-compatible provider against the scripted server, over real HTTP.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, type LlmServer } from "../llm-server.ts";
import {
  createOpenAICompatibleProvider,
  type OpenAICompatibleOptions,
} from "../../src/agent/providers/openaiCompatible.ts";
import type { ModelRequest, ToolSpec } from "../../src/agent/providers/types.ts";
import { closedPort, drain, FAST } from "./providerHelpers.ts";

const READ: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const GREP: ToolSpec = {
  name: "grep",
  description: "Search",
  parameters: { type: "object", properties: { pattern: { type: "string" } } },
};

let server: LlmServer;
before(async () => {
  server = await startLlmServer({ models: [{ name: "test-model", contextLength: 32768, maxModelLen: 8192 }] });
});
after(() => server.close());
beforeEach(() => server.reset());

const provider = (extra: Partial<OpenAICompatibleOptions> = {}) =>
  createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ...FAST, ...extra });
const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

describe("openai-compatible: streaming", () => {
  test("text arrives as deltas in order, then usage, then finish", async () => {
    server.script({ text: ["Hel", "lo ", "world"], usage: { input: 12, output: 3 } });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.deepEqual(r.parts, [
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo " },
      { type: "text", delta: "world" },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } },
      { type: "finish", reason: "stop", raw: "stop" },
    ]);
  });

  test("the request carries model, messages, temperature, max_tokens, tools and asks for usage", async () => {
    server.script({ text: "ok" });
    await drain(provider().stream(ask({ tools: [READ], temperature: 0.3, maxOutputTokens: 500 })));
    const body = server.completions[0].body;
    assert.equal(body.model, "test-model");
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.temperature, 0.3);
    assert.equal(body.max_tokens, 500);
    assert.deepEqual(body.tools, [
      { type: "function", function: { name: "read", description: "Read a file", parameters: READ.parameters } },
    ]);
    assert.deepEqual(body.messages, [{ role: "user", content: "hi" }]);
  });

  test("no tools, temperature or max tokens: none are sent", async () => {
    server.script({ text: "ok" });
    await drain(provider().stream(ask()));
    const body = server.completions[0].body;
    assert.equal("tools" in body, false);
    assert.equal("temperature" in body, false);
    assert.equal("max_tokens" in body, false);
  });

  test("OpenAI itself gets max_completion_tokens (its reasoning models refuse max_tokens)", async () => {
    server.script({ text: "ok" });
    await drain(provider({ name: "openai" }).stream(ask({ maxOutputTokens: 64 })));
    assert.equal(server.completions[0].body.max_completion_tokens, 64);
    assert.equal("max_tokens" in server.completions[0].body, false);
  });

  test("the API key is sent as a bearer token", async () => {
    server.script({ text: "ok" });
    await drain(provider({ apiKey: "sk-test" }).stream(ask()));
    assert.equal(server.completions[0].headers.authorization, "Bearer sk-test");
  });

  test("the conversation is sent in chat-completions shape: tool calls, tool results, no reasoning", async () => {
    server.script({ text: "done" });
    await drain(
      provider().stream(
        ask({
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "read a.py" },
            {
              role: "assistant",
              content: "",
              reasoning: "I should read it",
              toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"a.py"}' }],
            },
            { role: "tool", toolCallId: "c1", name: "read", content: "x = 1" },
          ],
        }),
      ),
    );
    assert.deepEqual(server.completions[0].body.messages, [
      { role: "system", content: "be brief" },
      { role: "user", content: "read a.py" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.py"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "x = 1" },
    ]);
  });
});

describe("openai-compatible: tool calls", () => {
  test("a call whose arguments come in several fragments is emitted once, whole", async () => {
    const args = { path: "src/main.py", start: 10, note: "a longer argument string to cut in pieces" };
    server.script({ text: "Reading.", toolCalls: [{ id: "call_a", name: "read", arguments: args, fragments: 7 }] });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    const calls = r.parts.filter((p) => p.type === "tool_call");
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0], {
      type: "tool_call",
      call: { id: "call_a", name: "read", arguments: JSON.stringify(args) },
    });
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "tool_calls", raw: "tool_calls" });
    assert.equal(r.text, "Reading.");
  });

  test("parallel calls come out in order, each with its own id and arguments", async () => {
    server.script({
      toolCalls: [
        { id: "c1", name: "read", arguments: { path: "a" } },
        { id: "c2", name: "grep", arguments: { pattern: "TODO" }, fragments: 4 },
        { id: "c3", name: "read", arguments: { path: "b" } },
      ],
    });
    const r = await drain(provider().stream(ask({ tools: [READ, GREP] })));
    const calls = r.parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
    assert.deepEqual(calls, [
      { id: "c1", name: "read", arguments: '{"path":"a"}' },
      { id: "c2", name: "grep", arguments: '{"pattern":"TODO"}' },
      { id: "c3", name: "read", arguments: '{"path":"b"}' },
    ]);
  });

  test("arguments that are not valid JSON are passed on exactly as sent", async () => {
    server.script({ toolCalls: [{ id: "c1", name: "read", arguments: '{"path": "a.py"', fragments: 2 }] });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    assert.deepEqual(
      r.parts.find((p) => p.type === "tool_call"),
      { type: "tool_call", call: { id: "c1", name: "read", arguments: '{"path": "a.py"' } },
    );
  });

  test("servers that number every call 0 and send each whole still give separate calls", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });
    server.script({
      raw: [
        chunk({ role: "assistant", content: "" }),
        chunk({
          tool_calls: [{ index: 0, id: "x1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }],
        }),
        chunk({
          tool_calls: [{ index: 0, id: "x2", type: "function", function: { name: "read", arguments: '{"path":"b"}' } }],
        }),
        chunk({}, "stop"),
      ],
    });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    const calls = r.parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
    assert.deepEqual(
      calls.map((c) => [c.id, c.arguments]),
      [
        ["x1", '{"path":"a"}'],
        ["x2", '{"path":"b"}'],
      ],
    );
    // "stop" after tool calls (as Ollama says it) is reported as tool_calls; the raw word stays.
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "tool_calls", raw: "stop" });
  });

  test("a call without an id gets one", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });
    server.script({
      raw: [
        chunk({ tool_calls: [{ index: 0, function: { name: "read", arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
      ],
    });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    const call = r.parts.find((p) => p.type === "tool_call");
    assert.ok(call && call.type === "tool_call" && call.call.id.length > 0);
  });
});

describe("openai-compatible: reasoning and usage", () => {
  test("reasoning_content deltas (vLLM, llama.cpp, DeepSeek) are reasoning parts", async () => {
    server.script({ reasoning: ["Let me ", "think."], text: "Answer." });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.reasoning, "Let me think.");
    assert.equal(r.text, "Answer.");
    assert.deepEqual(r.parts.slice(0, 2), [
      { type: "reasoning", delta: "Let me " },
      { type: "reasoning", delta: "think." },
    ]);
  });

  test("reasoning deltas (Ollama, OpenRouter) are reasoning parts", async () => {
    server.script({ reasoning: "Hmm.", reasoningField: "reasoning", text: "Yes." });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.reasoning, "Hmm.");
    assert.equal(r.text, "Yes.");
  });

  test("usage carries cached and reasoning tokens, and comes just before finish", async () => {
    server.script({ text: "x", usage: { input: 1000, output: 50, cached: 600, reasoning: 20 } });
    const r = await drain(provider().stream(ask()));
    assert.deepEqual(r.parts.slice(-2), [
      { type: "usage", usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 600, reasoningTokens: 20 } },
      { type: "finish", reason: "stop", raw: "stop" },
    ]);
  });

  test("a server that reports no usage gives no usage part", async () => {
    server.script({ text: "x", usage: false });
    const r = await drain(provider().stream(ask()));
    assert.equal(
      r.parts.some((p) => p.type === "usage"),
      false,
    );
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "stop", raw: "stop" });
  });

  test("finish reason length is reported", async () => {
    server.script({ text: "cut", finish: "length" });
    const r = await drain(provider().stream(ask()));
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "length", raw: "length" });
  });
});

describe("openai-compatible: retries", () => {
  test("429 (honouring retry-after-ms) and 500 are retried, then the answer streams", async () => {
    server.script({ status: 429, headers: { "retry-after-ms": "150" } }, { status: 500 }, { text: "finally" });
    const started = Date.now();
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, "finally");
    assert.equal(server.completions.length, 3);
    assert.ok(Date.now() - started >= 140, "waited as Retry-After asked");
  });

  test("Retry-After in seconds is honoured", async () => {
    server.script({ status: 429, headers: { "retry-after": "1" } }, { text: "ok" });
    const started = Date.now();
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "ok");
    assert.ok(Date.now() - started >= 950);
  });

  test("after the bound, the last error is reported, with the number of attempts", async () => {
    server.script({ status: 500 }, { status: 502 }, { status: 503 }, { text: "never reached" });
    const r = await drain(provider({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } }).stream(ask()));
    assert.equal(r.error?.kind, "server");
    assert.equal(r.error?.status, 503);
    assert.match(r.error!.message, /gave up after 3 attempts/);
    assert.equal(server.completions.length, 3);
    assert.equal(r.parts.length, 0);
  });

  test("backoff doubles between retries", async () => {
    server.script({ status: 500 }, { status: 500 }, { status: 500 }, { text: "ok" });
    const started = Date.now();
    const r = await drain(provider({ retry: { maxRetries: 3, baseDelayMs: 40, maxDelayMs: 1000 } }).stream(ask()));
    assert.equal(r.text, "ok");
    // 40 + 80 + 160 ms
    assert.ok(Date.now() - started >= 270, `took ${Date.now() - started} ms`);
  });

  test("a Retry-After longer than the limit is reported, not waited for", async () => {
    server.script({ status: 429, headers: { "retry-after": "3600" } }, { text: "never" });
    const r = await drain(provider({ retry: { maxRetryAfterMs: 1000 } }).stream(ask()));
    assert.equal(r.error?.kind, "rate_limit");
    assert.equal(r.error?.retryAfterMs, 3_600_000);
    assert.match(r.error!.message, /asks to wait 3600 s/);
    assert.equal(server.completions.length, 1);
  });

  test("errors a retry cannot fix are not retried (401, 400)", async () => {
    server.script({ status: 401 }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error?.kind, "auth");
    assert.equal(server.completions.length, 1);
    server.reset();
    server.script({ status: 400, message: "messages: field required" }, { text: "never" });
    const r2 = await drain(provider().stream(ask()));
    assert.equal(r2.error?.kind, "bad_request");
    assert.match(r2.error!.message, /messages: field required/);
    assert.equal(server.completions.length, 1);
  });

  test("a model the server does not have is model_not_found", async () => {
    server.script({ status: 404, message: 'model "nope" not found, try pulling it first' });
    const r = await drain(provider().stream(ask({ model: "nope" })));
    assert.equal(r.error?.kind, "model_not_found");
    assert.match(r.error!.message, /try pulling it first/);
  });

  test("nothing listening: unreachable, after the retries", async () => {
    const port = await closedPort();
    const p = createOpenAICompatibleProvider({
      baseURL: `http://127.0.0.1:${port}/v1`,
      retry: { maxRetries: 1, baseDelayMs: 1 },
    });
    const r = await drain(p.stream(ask()));
    assert.equal(r.error?.kind, "unreachable");
    assert.match(r.error!.message, /connection refused/);
    assert.match(r.error!.message, /gave up after 2 attempts/);
  });
});

describe("openai-compatible: broken and hung streams", () => {
  test("a stream cut mid-answer yields what arrived, then stream_broken, and is not retried", async () => {
    server.script({ text: ["one ", "two ", "three ", "four"], breakAfter: 3 }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "one two ");
    assert.equal(r.error?.kind, "stream_broken");
    assert.equal(server.completions.length, 1);
    assert.equal(server.pending, 1);
  });

  test("a stream cut before any visible part is retried", async () => {
    server.script({ text: "lost", breakAfter: 1 }, { text: "second try" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, "second try");
    assert.equal(server.completions.length, 2);
  });

  test("an error event inside the stream after text is reported, not retried, classified by what it says, quoting the server", async () => {
    server.script({ text: ["a ", "b ", "c"], errorEventAfter: 2, message: "upstream overloaded" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "a ");
    // {"error": {"type": "server_error", ...}}: a server error, but part of the answer was out: no retry.
    assert.equal(r.error?.kind, "server");
    assert.match(
      r.error!.message,
      /broke off after it started: .* sent an error in the stream \(server_error\): "upstream overloaded"/,
    );
    assert.equal(server.completions.length, 1);
  });

  test("a stream that ends with [DONE] and no finish reason is a complete answer (Snowflake Cortex's shape)", async () => {
    // (One that ends with neither is stream_broken: providers-streams.test.ts.)
    server.script({
      raw: [JSON.stringify({ choices: [{ index: 0, delta: { content: "whole" }, finish_reason: null }] })],
    });
    const r = await drain(provider({ retry: { maxRetries: 0 } }).stream(ask()));
    assert.equal(r.text, "whole");
    assert.equal(r.error, undefined);
  });

  test("a server that never answers times out (first-part timeout), retried up to the bound", async () => {
    server.script({ hang: true }, { hang: true });
    const started = Date.now();
    const r = await drain(
      provider({ retry: { maxRetries: 1, baseDelayMs: 1 }, timeouts: { firstPartMs: 150, idleMs: 5000 } }).stream(
        ask(),
      ),
    );
    assert.equal(r.error?.kind, "timeout");
    assert.match(r.error!.message, /sent nothing for 150 ms/);
    assert.equal(server.completions.length, 2);
    assert.ok(Date.now() - started < 3000);
  });

  test("a server that stops mid-answer times out (idle timeout), keeping what arrived", async () => {
    server.script({ text: ["a ", "b ", "c ", "d"], hangAfter: 3 }, { text: "never" });
    const r = await drain(provider({ timeouts: { firstPartMs: 5000, idleMs: 150 } }).stream(ask()));
    assert.equal(r.text, "a b ");
    assert.equal(r.error?.kind, "timeout");
    assert.match(r.error!.message, /stopped sending for 150 ms in the middle of the answer/);
    assert.equal(server.completions.length, 1);
  });

  test("a slow but steady stream is not an idle timeout", async () => {
    // The whole answer takes longer than the idle timeout; no gap comes near it (wide margins: a loaded
    // machine can stall this process, server and client alike, for a few hundred milliseconds).
    const words = ["a ", "b ", "c ", "d ", "e ", "f ", "g ", "h ", "i ", "j"];
    server.script({ text: words, chunkDelayMs: 150 });
    const started = Date.now();
    const r = await drain(provider({ timeouts: { firstPartMs: 5000, idleMs: 1000 } }).stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, words.join(""));
    assert.ok(Date.now() - started > 1000, "the answer outlasted the idle timeout");
  });

  test("a consumer slower than the idle timeout is not taken for a hung server", async () => {
    server.script({ text: ["a ", "b ", "c"] });
    const texts: string[] = [];
    for await (const p of provider({ timeouts: { firstPartMs: 5000, idleMs: 100 } }).stream(ask())) {
      if (p.type === "text") texts.push(p.delta);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(texts, ["a ", "b ", "c"]);
  });

  test("abort through the signal mid-stream: aborted, what arrived is kept", async () => {
    server.script({ text: ["a ", "b ", "c ", "d ", "e"], chunkDelayMs: 100 });
    const controller = new AbortController();
    const parts: string[] = [];
    let kind: string | undefined;
    try {
      for await (const p of provider().stream(ask({ signal: controller.signal }))) {
        if (p.type === "text") parts.push(p.delta);
        if (parts.length === 2) controller.abort();
      }
    } catch (e) {
      kind = (e as { kind?: string }).kind;
    }
    assert.equal(kind, "aborted");
    assert.deepEqual(parts, ["a ", "b "]);
  });

  test("abort while waiting for the first part ends at once", async () => {
    server.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const r = await drain(
      provider({ timeouts: { firstPartMs: 10_000, idleMs: 10_000 } }).stream(ask({ signal: controller.signal })),
    );
    assert.equal(r.error?.kind, "aborted");
    assert.ok(Date.now() - started < 2000);
  });

  test("an already aborted signal sends nothing", async () => {
    const r = await drain(provider().stream(ask({ signal: AbortSignal.abort() })));
    assert.equal(r.error?.kind, "aborted");
    assert.equal(server.completions.length, 0);
  });
});

describe("openai-compatible: tools not supported", () => {
  test('Ollama\'s 400 "does not support tools" is tools_unsupported, not retried', async () => {
    server.script({ toolsUnsupported: true }, { text: "never" });
    const r = await drain(provider().stream(ask({ model: "gemma2:2b", tools: [READ] })));
    assert.equal(r.error?.kind, "tools_unsupported");
    assert.equal(r.error?.status, 400);
    assert.match(r.error!.message, /does not support tools/);
    assert.equal(server.completions.length, 1);
  });

  test("vLLM without a tool parser is tools_unsupported too", async () => {
    server.script({
      status: 400,
      message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    assert.equal(r.error?.kind, "tools_unsupported");
  });

  test("the same words on a request without tools are a plain bad request", async () => {
    server.script({ toolsUnsupported: true });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error?.kind, "bad_request");
  });
});

describe("openai-compatible: models and context window", () => {
  test("listModels reads /v1/models; Ollama's reads /api/tags", async () => {
    assert.deepEqual(await provider().listModels!(), ["test-model"]);
    const ollama = provider({ name: "ollama" });
    assert.deepEqual(await ollama.listModels!(), ["test-model"]);
    assert.ok(server.requests.some((r) => r.path === "/api/tags"));
  });

  test("Ollama: the window is the model's context_length from /api/show", async () => {
    const p = provider({ name: "ollama" });
    assert.equal(await p.contextWindow!("test-model"), 32768);
    const show = server.requests.find((r) => r.path === "/api/show");
    assert.equal(show?.body.model, "test-model");
  });

  test("Ollama: a num_ctx set in the Modelfile lowers it", async () => {
    server.models = [{ name: "small", contextLength: 131072, numCtx: 8192 }];
    try {
      assert.equal(await provider({ name: "ollama" }).contextWindow!("small"), 8192);
    } finally {
      server.models = [{ name: "test-model", contextLength: 32768, maxModelLen: 8192 }];
    }
  });

  test("other servers: the window listed in /models (vLLM's max_model_len)", async () => {
    assert.equal(await provider().contextWindow!("test-model"), 8192);
  });

  test("else the table of known models, else undefined", async () => {
    assert.equal(await provider({ name: "openai" }).contextWindow!("gpt-4.1-mini"), 1_047_576);
    assert.equal(await provider({ name: "openai" }).contextWindow!("gpt-4o"), 128_000);
    assert.equal(await provider().contextWindow!("anthropic/claude-3.5-sonnet"), 200_000);
    assert.equal(await provider().contextWindow!("mystery-model"), undefined);
  });

  test("a configured window wins over what the server says", async () => {
    assert.equal(
      await provider({ name: "ollama", contextWindows: { "test-model": 4096 } }).contextWindow!("test-model"),
      4096,
    );
  });
});
