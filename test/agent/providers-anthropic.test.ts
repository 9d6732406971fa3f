// The Anthropic provider against the scripted server, over real HTTP.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, type LlmServer } from "../llm-server.ts";
import { createAnthropicProvider, type AnthropicOptions } from "../../src/agent/providers/anthropic.ts";
import type { ModelRequest, ToolSpec } from "../../src/agent/providers/types.ts";
import { drain, FAST } from "./providerHelpers.ts";

const READ: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};

let server: LlmServer;
before(async () => {
  server = await startLlmServer({ models: [{ name: "claude-test" }] });
});
after(() => server.close());
beforeEach(() => server.reset());

const provider = (extra: Partial<AnthropicOptions> = {}) =>
  createAnthropicProvider({ baseURL: server.anthropicBaseUrl, apiKey: "sk-ant-test", ...FAST, ...extra });
const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "claude-test",
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

describe("anthropic: streaming", () => {
  test("text deltas, then usage from message_start and message_delta, then finish", async () => {
    server.script({ text: ["Hel", "lo"], usage: { input: 120, output: 7, cached: 100 } });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.deepEqual(r.parts, [
      // message_start reports the input side at once (kept even if the stream breaks later);
      // input counts the whole prompt, cached tokens included (Anthropic reports them apart)
      { type: "usage", usage: { inputTokens: 120, outputTokens: 1, cachedInputTokens: 100 } },
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo" },
      { type: "usage", usage: { inputTokens: 120, outputTokens: 7, cachedInputTokens: 100 } },
      { type: "native", native: { anthropic: [{ type: "text", text: "Hello" }] } },
      { type: "finish", reason: "stop", raw: "end_turn" },
    ]);
  });

  test("the request: system on top, max_tokens, no temperature (API 2026-10-21 removed it), tools with input_schema, the key in x-api-key", async () => {
    server.script({ text: "ok" });
    await drain(
      provider().stream(
        ask({
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "hi" },
          ],
          tools: [READ],
          temperature: 0.2,
        }),
      ),
    );
    const req = server.completions[0];
    assert.equal(req.path, "/v1/messages");
    assert.equal(req.body.system, "be brief");
    assert.equal(req.body.max_tokens, 8192);
    assert.equal("temperature" in req.body, false);
    assert.equal(req.body.stream, true);
    assert.deepEqual(req.body.tools, [{ name: "read", description: "Read a file", input_schema: READ.parameters }]);
    assert.deepEqual(req.body.messages, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    assert.ok(req.headers["anthropic-version"]);
    // Anthropic's API reference: an API key goes in x-api-key (Authorization: Bearer is for federated tokens).
    assert.equal(req.headers["x-api-key"], "sk-ant-test");
    assert.equal(req.headers.authorization, undefined);
  });

  test("maxOutputTokens is sent as max_tokens", async () => {
    server.script({ text: "ok" });
    await drain(provider().stream(ask({ maxOutputTokens: 300 })));
    assert.equal(server.completions[0].body.max_tokens, 300);
  });

  test("thinking blocks are reasoning parts; the signature comes once, at the block's end", async () => {
    server.script({ reasoning: ["First, ", "look."], signature: "sig-42", text: "Done." });
    const r = await drain(provider().stream(ask()));
    assert.deepEqual(r.parts.slice(1, 4), [
      { type: "reasoning", delta: "First, " },
      { type: "reasoning", delta: "look." },
      { type: "reasoning", delta: "", signature: "sig-42" },
    ]);
    assert.equal(r.text, "Done.");
  });

  test("a thinking budget turns thinking on, drops temperature and keeps max_tokens above the budget", async () => {
    server.script({ text: "ok" });
    await drain(provider({ thinkingBudgetTokens: 10_000 }).stream(ask({ temperature: 0.5, maxOutputTokens: 2000 })));
    const body = server.completions[0].body;
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 10_000 });
    assert.equal("temperature" in body, false);
    assert.ok(body.max_tokens > 10_000);
  });
});

describe("anthropic: tool use", () => {
  test("tool_use blocks with input_json_delta fragments become whole calls, in order", async () => {
    server.script({
      text: "Looking.",
      toolCalls: [
        { id: "toolu_a", name: "read", arguments: { path: "a.py", note: "several fragments of json" }, fragments: 6 },
        { id: "toolu_b", name: "read", arguments: { path: "b.py" } },
      ],
    });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    const calls = r.parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
    assert.deepEqual(calls, [
      { id: "toolu_a", name: "read", arguments: JSON.stringify({ path: "a.py", note: "several fragments of json" }) },
      { id: "toolu_b", name: "read", arguments: '{"path":"b.py"}' },
    ]);
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "tool_calls", raw: "tool_use" });
  });

  test("a call with no arguments gives {}", async () => {
    server.script({ toolCalls: [{ id: "t1", name: "read", arguments: "" }] });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    assert.deepEqual(
      r.parts.find((p) => p.type === "tool_call"),
      { type: "tool_call", call: { id: "t1", name: "read", arguments: "{}" } },
    );
  });

  test("the conversation in Messages shape: tool_use, merged tool_results, signed thinking only", async () => {
    server.script({ text: "ok" });
    await drain(
      provider().stream(
        ask({
          messages: [
            { role: "system", content: "sys" },
            { role: "user", content: "look at a and b" },
            {
              role: "assistant",
              content: "Reading both.",
              reasoning: "need both files",
              reasoningSignature: "sig-1",
              toolCalls: [
                { id: "t1", name: "read", arguments: '{"path":"a"}' },
                { id: "t2", name: "read", arguments: "{not json" },
              ],
            },
            { role: "tool", toolCallId: "t1", name: "read", content: "A" },
            { role: "tool", toolCallId: "t2", name: "read", content: "bad arguments", isError: true },
            { role: "user", content: "and?" },
            { role: "assistant", content: "unsigned thinking is dropped", reasoning: "no signature" },
            { role: "user", content: "ok" },
          ],
        }),
      ),
    );
    const body = server.completions[0].body;
    assert.equal(body.system, "sys");
    assert.deepEqual(body.messages, [
      { role: "user", content: [{ type: "text", text: "look at a and b" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "need both files", signature: "sig-1" },
          { type: "text", text: "Reading both." },
          { type: "tool_use", id: "t1", name: "read", input: { path: "a" } },
          { type: "tool_use", id: "t2", name: "read", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A" },
          { type: "tool_result", tool_use_id: "t2", content: "bad arguments", is_error: true },
          { type: "text", text: "and?" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "unsigned thinking is dropped" }] },
      { role: "user", content: [{ type: "text", text: "ok" }] },
    ]);
  });
});

describe("anthropic: retries, breaks, hangs", () => {
  test("429 and 529 (overloaded) are retried, then the answer streams", async () => {
    server.script(
      { status: 429, headers: { "retry-after": "0" } },
      { status: 529, message: "Overloaded" },
      { text: "ok" },
    );
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, "ok");
    assert.equal(server.completions.length, 3);
  });

  test("after the bound, the last error is reported", async () => {
    server.script({ status: 529 }, { status: 529 }, { text: "never" });
    const r = await drain(provider({ retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(ask()));
    assert.equal(r.error?.kind, "server");
    assert.equal(r.error?.status, 529);
    assert.equal(server.completions.length, 2);
  });

  test("401 is auth and not retried", async () => {
    server.script({ status: 401 }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error?.kind, "auth");
    assert.match(r.error!.message, /check the API key/);
    assert.equal(server.completions.length, 1);
  });

  test("a stream cut mid-answer yields what arrived, then stream_broken, not retried", async () => {
    // message_start, content_block_start, ping, then two text deltas, then the cut
    server.script({ text: ["one ", "two ", "three"], breakAfter: 5 }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "one two ");
    assert.equal(r.error?.kind, "stream_broken");
    assert.equal(server.completions.length, 1);
  });

  test("an overloaded error event mid-answer is reported (not retried, part of the answer is out); before any part it is retried", async () => {
    server.script({ text: ["a ", "b ", "c"], errorEventAfter: 4, message: "Overloaded" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "a ");
    assert.equal(r.error?.kind, "server");
    assert.match(r.error!.message, /broke off after it started: .*\(overloaded_error\): "Overloaded"/);
    assert.equal(server.completions.length, 1);

    server.reset();
    server.script({ text: "lost", errorEventAfter: 1 }, { text: "second" });
    const r2 = await drain(provider().stream(ask()));
    assert.equal(r2.error, undefined);
    assert.equal(r2.text, "second");
    assert.equal(server.completions.length, 2);
  });

  test("a server that stops mid-answer times out, keeping what arrived", async () => {
    server.script({ text: ["a ", "b ", "c"], hangAfter: 5 });
    const r = await drain(provider({ timeouts: { firstPartMs: 5000, idleMs: 1000 } }).stream(ask()));
    assert.equal(r.text, "a b ");
    assert.equal(r.error?.kind, "timeout");
  });

  test("a server that never answers times out", async () => {
    server.script({ hang: true });
    const r = await drain(
      provider({ retry: { maxRetries: 0 }, timeouts: { firstPartMs: 150, idleMs: 5000 } }).stream(ask()),
    );
    assert.equal(r.error?.kind, "timeout");
  });

  test("abort through the signal", async () => {
    server.script({ text: ["a ", "b ", "c ", "d"], chunkDelayMs: 100 });
    const controller = new AbortController();
    const texts: string[] = [];
    let kind: string | undefined;
    try {
      for await (const p of provider().stream(ask({ signal: controller.signal }))) {
        if (p.type === "text") texts.push(p.delta);
        if (texts.length === 1) controller.abort();
      }
    } catch (e) {
      kind = (e as { kind?: string }).kind;
    }
    assert.equal(kind, "aborted");
    assert.deepEqual(texts, ["a "]);
  });
});

describe("anthropic: models", () => {
  test("listModels reads /v1/models; the window comes from the table", async () => {
    assert.deepEqual(await provider().listModels!(), ["claude-test"]);
    assert.equal(await provider().contextWindow!("claude-sonnet-4-5"), 200_000);
    assert.equal(
      await provider({ contextWindows: { "claude-sonnet-4-5": 1_000_000 } }).contextWindow!("claude-sonnet-4-5"),
      1_000_000,
    );
  });
});

describe("anthropic: what goes back is what the API accepts", () => {
  // Invariant: no text block of a request is empty or whitespace only (the API answers 400 "text
  // content blocks must contain non-whitespace text"), whatever the answer's blocks and the
  // message text hold; and every signed thinking block goes back unchanged, in order.
  test("generated assistant messages: no empty or whitespace-only text block, thinking kept", async () => {
    const { toAnthropicMessages } = await import("../../src/agent/providers/anthropicMessages.ts");
    const pieces = ["", " ", "\n\n", "\t \n", "ok", " spaced ", "a\n"];
    let seed = 7;
    const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length];
    for (let i = 0; i < 400; i++) {
      const blocks: Array<Record<string, unknown>> = [];
      const n = 1 + (i % 5);
      for (let j = 0; j < n; j++) {
        const kind = pick(["text", "text", "thinking", "redacted_thinking", "server_tool_use"]);
        if (kind === "text") blocks.push({ type: "text", text: pick(pieces) });
        else if (kind === "thinking") blocks.push({ type: "thinking", thinking: pick(pieces), signature: `sig${j}` });
        else if (kind === "redacted_thinking") blocks.push({ type: "redacted_thinking", data: `d${j}` });
        else blocks.push({ type: "server_tool_use", id: `srv${j}`, name: "web_search", input: {} });
      }
      const text = blocks
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("");
      const content = pick([text, `${text}\n\n[rt: cut]`, pick(pieces)]);
      const { messages } = toAnthropicMessages([
        { role: "user", content: pick(pieces) },
        { role: "assistant", content, native: { anthropic: blocks } },
        { role: "user", content: pick(pieces) },
      ]);
      for (const m of messages) {
        for (const b of m.content)
          if (b.type === "text") assert.notEqual(b.text.trim(), "", JSON.stringify({ blocks, content }));
      }
      const sent = messages.find((m) => m.role === "assistant")?.content ?? [];
      assert.deepEqual(
        sent.filter((b) => b.type === "thinking" || b.type === "redacted_thinking"),
        blocks.filter((b) => b.type === "thinking" || b.type === "redacted_thinking"),
      );
    }
  });
});
