// Ollama's native chat API (/api/chat, NDJSON) against the scripted server over
// real HTTP: the provider alone, then `rt run --model ollama/...` as a user runs
// it, with num_ctx checked against the window rt budgets for in each case.
// The first `rt run` goes through the real executable; the others run the
// CLI's own `main` in this process (test/rtMain.ts): the same parsing,
// set-up, provider and output, without a Node start per run.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply, startLlmServer, type ServedModel } from "../llm-server.ts";
import { createOllamaProvider, type OllamaOptions } from "../../src/agent/providers/ollama.ts";
import { resolveModel } from "../../src/agent/providers/resolve.ts";
import type { ModelRequest, ToolSpec } from "../../src/agent/providers/types.ts";
import { DEFAULT_CONTEXT_WINDOW, OLLAMA_MAX_CONTEXT_WINDOW } from "../../src/base/limits.ts";
import { rt, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { closedPort, drain, FAST } from "./providerHelpers.ts";
import { scriptedOllama } from "./harness.ts";
import { trustFolder } from "../security/trust-harness.ts";

const READ: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const MODELS: ServedModel[] = [
  { name: "test-model", contextLength: 32768 },
  { name: "big", contextLength: 131072 },
  { name: "tuned", contextLength: 131072, numCtx: 8192 },
  { name: "bare" }, // /api/show knows no window
];

const ollama = scriptedOllama({ models: MODELS });

const provider = (extra: Partial<OllamaOptions> = {}) =>
  createOllamaProvider({ baseURL: ollama.server.url, ...FAST, ...extra });
const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  contextWindow: 20000,
  ...extra,
});

describe("ollama: streaming", () => {
  test("text arrives as deltas in order, then usage (prompt_eval_count, eval_count), then finish", async () => {
    ollama.server.script({ text: ["Hel", "lo ", "world"], usage: { input: 12, output: 3 } });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.deepEqual(r.parts, [
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo " },
      { type: "text", delta: "world" },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } },
      { type: "finish", reason: "stop", raw: "stop" },
    ]);
    assert.equal(ollama.server.completions[0].path, "/api/chat");
  });

  test("the request: model, messages, tools, stream, options {num_ctx, temperature, num_predict}; no think unless configured", async () => {
    ollama.server.script({ text: "ok" });
    await drain(provider().stream(ask({ tools: [READ], temperature: 0.3, maxOutputTokens: 500 })));
    const body = ollama.server.completions[0].body;
    assert.equal(body.model, "test-model");
    assert.equal(body.stream, true);
    assert.deepEqual(body.options, { num_ctx: 20000, temperature: 0.3, num_predict: 500 });
    assert.deepEqual(body.tools, [
      { type: "function", function: { name: "read", description: "Read a file", parameters: READ.parameters } },
    ]);
    assert.deepEqual(body.messages, [{ role: "user", content: "hi" }]);
    assert.equal("think" in body, false);
    ollama.server.reset();
    ollama.server.script({ text: "ok" });
    await drain(provider({ think: false }).stream(ask()));
    assert.equal(ollama.server.completions[0].body.think, false);
    assert.equal("tools" in ollama.server.completions[0].body, false);
  });

  test("the conversation in Ollama's shape: thinking, tool calls with object arguments, tool results by name", async () => {
    ollama.server.script({ text: "done" });
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
              toolCalls: [
                { id: "c1", name: "read", arguments: '{"path":"a.py"}' },
                { id: "c2", name: "read", arguments: "{not json" },
              ],
            },
            { role: "tool", toolCallId: "c1", name: "read", content: "x = 1" },
            { role: "tool", toolCallId: "c2", name: "read", content: "error: bad arguments", isError: true },
          ],
        }),
      ),
    );
    assert.deepEqual(ollama.server.completions[0].body.messages, [
      { role: "system", content: "be brief" },
      { role: "user", content: "read a.py" },
      {
        role: "assistant",
        content: "",
        thinking: "I should read it",
        tool_calls: [
          { id: "c1", function: { name: "read", arguments: { path: "a.py" } } },
          { id: "c2", function: { name: "read", arguments: {} } },
        ],
      },
      { role: "tool", content: "x = 1", tool_name: "read", tool_call_id: "c1" },
      { role: "tool", content: "error: bad arguments", tool_name: "read", tool_call_id: "c2" },
    ]);
  });

  test("thinking is reasoning; tool calls (objects, no ids) get JSON text and ids unique across answers", async () => {
    const twoCalls = {
      reasoning: ["Let ", "me ", "look"],
      toolCalls: [
        { name: "read", arguments: { path: "a" } },
        { name: "read", arguments: { path: "b", n: 2 } },
      ],
    };
    ollama.server.script(twoCalls, twoCalls);
    const p = provider();
    const r1 = await drain(p.stream(ask({ tools: [READ] })));
    const r2 = await drain(p.stream(ask({ tools: [READ] })));
    assert.equal(r1.reasoning, "Let me look");
    const calls = [...r1.parts, ...r2.parts].flatMap((x) => (x.type === "tool_call" ? [x.call] : []));
    assert.deepEqual(
      calls.map((c) => [c.name, c.arguments]),
      [
        ["read", '{"path":"a"}'],
        ["read", '{"path":"b","n":2}'],
        ["read", '{"path":"a"}'],
        ["read", '{"path":"b","n":2}'],
      ],
    );
    assert.equal(new Set(calls.map((c) => c.id)).size, 4, JSON.stringify(calls.map((c) => c.id)));
    for (const c of calls) assert.match(c.id, /^call_\w+$/);
    // Ollama says "stop" after tool calls; the agent needs "tool_calls" (the raw word stays).
    assert.deepEqual(r1.parts.at(-1), { type: "finish", reason: "tool_calls", raw: "stop" });
  });

  test("an id Ollama sends (0.12.10 and later) is kept", async () => {
    ollama.server.script({ toolCalls: [{ id: "call_abc", name: "read", arguments: { path: "a" } }] });
    const r = await drain(provider().stream(ask({ tools: [READ] })));
    const call = r.parts.find((x) => x.type === "tool_call");
    assert.equal(call?.type === "tool_call" && call.call.id, "call_abc");
  });

  test("done_reason length is reported, tool calls or not", async () => {
    ollama.server.script({ text: "cut", finish: "length" });
    const r = await drain(provider().stream(ask()));
    assert.deepEqual(r.parts.at(-1), { type: "finish", reason: "length", raw: "length" });
  });

  test("prompt_eval_cached_count is the cached part of the input", async () => {
    ollama.server.script({ text: "ok", usage: { input: 900, output: 5, cached: 800 } });
    const r = await drain(provider().stream(ask()));
    assert.deepEqual(
      r.parts.find((x) => x.type === "usage"),
      { type: "usage", usage: { inputTokens: 900, outputTokens: 5, cachedInputTokens: 800 } },
    );
  });

  test("no counts in the done line: no usage part", async () => {
    ollama.server.script({ text: "ok", usage: false });
    const r = await drain(provider().stream(ask()));
    assert.equal(
      r.parts.some((x) => x.type === "usage"),
      false,
    );
  });
});

describe("ollama: num_ctx and the context window", () => {
  const numCtx = async (p: ReturnType<typeof provider>, model: string) => {
    ollama.server.reset();
    ollama.server.script({ text: "ok" });
    const r = await drain(p.stream({ model, messages: [{ role: "user", content: "hi" }] }));
    assert.equal(r.error, undefined);
    return ollama.server.completions[0].body.options.num_ctx;
  };

  test("the request's contextWindow (what the agent budgets for) is sent as num_ctx", async () => {
    ollama.server.script({ text: "ok" });
    await drain(provider().stream(ask({ contextWindow: 12345 })));
    assert.equal(ollama.server.completions[0].body.options.num_ctx, 12345);
  });

  test("without one: the provider's own window, which is what contextWindow() reports", async () => {
    const p = provider();
    for (const [model, want] of [
      ["test-model", 32768],
      ["big", OLLAMA_MAX_CONTEXT_WINDOW], // trained 131072: capped
      ["tuned", 8192], // the Modelfile's num_ctx
      ["bare", DEFAULT_CONTEXT_WINDOW], // /api/show says nothing
      ["missing", DEFAULT_CONTEXT_WINDOW], // /api/show answers 404
    ] as const) {
      assert.equal(await numCtx(p, model), want, model);
      const reported = await p.contextWindow!(model);
      assert.equal(reported ?? DEFAULT_CONTEXT_WINDOW, want, model);
    }
    assert.equal(OLLAMA_MAX_CONTEXT_WINDOW, 32768);
  });

  test("a configured window wins over /api/show; /api/show is asked once per model", async () => {
    const p = provider({ contextWindows: { big: 65536 } });
    assert.equal(await p.contextWindow!("big"), 65536);
    assert.equal(await numCtx(p, "big"), 65536);
    assert.equal(ollama.server.requests.filter((r) => r.path === "/api/show").length, 0);
    await p.contextWindow!("test-model");
    await numCtx(p, "test-model");
    await numCtx(p, "test-model");
    assert.equal(ollama.server.requests.filter((r) => r.path === "/api/show").length, 0, "cached from the first probe");
  });
});

describe("ollama: failures", () => {
  test("429 (Retry-After) and 500 are retried, then the answer streams", async () => {
    ollama.server.script({ status: 429, headers: { "retry-after": "0.15" } }, { status: 500 }, { text: "finally" });
    const started = Date.now();
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, "finally");
    assert.equal(ollama.server.completions.length, 3);
    assert.ok(Date.now() - started >= 140, "waited as Retry-After asked");
    for (const c of ollama.server.completions) assert.equal(c.body.options.num_ctx, 20000);
  });

  test("after the bound, the last error is reported with Ollama's words and the number of attempts", async () => {
    ollama.server.script(
      { status: 500, message: "llama runner process has terminated" },
      { status: 503 },
      { text: "never" },
    );
    const r = await drain(provider({ retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(ask()));
    assert.equal(r.error?.kind, "server");
    assert.equal(r.error?.status, 503);
    assert.match(r.error!.message, /gave up after 2 attempts/);
    assert.equal(ollama.server.completions.length, 2);
  });

  test("400 and a missing model are not retried; the model's name is in the advice", async () => {
    ollama.server.script({ status: 400, message: "invalid options" }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error?.kind, "bad_request");
    assert.match(r.error!.message, /invalid options/);
    assert.equal(ollama.server.completions.length, 1);
    ollama.server.reset();
    ollama.server.script({ status: 404, message: "model 'nope' not found" });
    const r2 = await drain(provider().stream(ask({ model: "nope" })));
    assert.equal(r2.error?.kind, "model_not_found");
    assert.match(r2.error!.message, /"nope"/);
  });

  test("nothing listening: unreachable, after the retries", async () => {
    const port = await closedPort();
    const r = await drain(
      createOllamaProvider({ baseURL: `http://127.0.0.1:${port}`, retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(
        ask(),
      ),
    );
    assert.equal(r.error?.kind, "unreachable");
    assert.match(r.error!.message, /connection refused/);
    assert.match(r.error!.message, /gave up after 2 attempts/);
  });

  test("a stream cut mid-answer keeps what arrived, then stream_broken, not retried", async () => {
    ollama.server.script({ text: ["one ", "two ", "three ", "four"], breakAfter: 2 }, { text: "never" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "one two ");
    assert.equal(r.error?.kind, "stream_broken");
    assert.equal(ollama.server.completions.length, 1);
    assert.equal(ollama.server.pending, 1);
  });

  test("a stream cut before anything arrived is retried", async () => {
    ollama.server.script({ text: "lost", breakAfter: 0 }, { text: "second try" });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.error, undefined);
    assert.equal(r.text, "second try");
    assert.equal(ollama.server.completions.length, 2);
  });

  test("an {error} line inside the stream is reported with Ollama's words, and not retried: it says nothing of being transient", async () => {
    ollama.server.script({
      text: ["a ", "b ", "c"],
      errorEventAfter: 1,
      message: "an error was encountered while running the model",
    });
    const r = await drain(provider().stream(ask()));
    assert.equal(r.text, "a ");
    assert.equal(r.error?.kind, "stream_error");
    assert.match(r.error!.message, /"an error was encountered while running the model"/);
    ollama.server.reset();
    // Before any text too: an in-stream error is retried only when it says it is transient.
    ollama.server.script(
      { text: "x", errorEventAfter: 0, message: "an error was encountered while running the model" },
      { text: "never" },
    );
    const r2 = await drain(provider().stream(ask()));
    assert.equal(r2.error?.kind, "stream_error");
    assert.equal(ollama.server.completions.length, 1);
  });

  test("a stream without its done line, or with a line that is not JSON, is stream_broken", async () => {
    ollama.server.script({ raw: [JSON.stringify({ message: { role: "assistant", content: "half" }, done: false })] });
    const r = await drain(provider({ retry: { maxRetries: 0 } }).stream(ask()));
    assert.equal(r.text, "half");
    assert.equal(r.error?.kind, "stream_broken");
    assert.match(r.error!.message, /no "done" line/);
    ollama.server.script({ raw: [JSON.stringify({ message: { content: "x" }, done: false }), "<html>"] });
    const r2 = await drain(provider({ retry: { maxRetries: 0 } }).stream(ask()));
    assert.equal(r2.text, "x");
    assert.equal(r2.error?.kind, "stream_broken");
  });

  test("a server that never answers times out; one that stops mid-answer times out keeping the text", async () => {
    ollama.server.script({ hang: true }, { hang: true });
    const r = await drain(
      provider({ retry: { maxRetries: 1, baseDelayMs: 1 }, timeouts: { firstPartMs: 150, idleMs: 5000 } }).stream(
        ask(),
      ),
    );
    assert.equal(r.error?.kind, "timeout");
    assert.match(r.error!.message, /sent nothing for 150 ms/);
    assert.equal(ollama.server.completions.length, 2);
    ollama.server.reset();
    ollama.server.script({ text: ["a ", "b ", "c"], hangAfter: 2 });
    const r2 = await drain(provider({ timeouts: { firstPartMs: 5000, idleMs: 150 } }).stream(ask()));
    assert.equal(r2.text, "a b ");
    assert.equal(r2.error?.kind, "timeout");
  });

  test("abort mid-stream: aborted, what arrived is kept", async () => {
    ollama.server.script({ text: ["a ", "b ", "c ", "d ", "e"], chunkDelayMs: 100 });
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

  test('400 "does not support tools" is tools_unsupported, not retried; without tools a bad request', async () => {
    ollama.server.script(reply.toolsUnsupported(), { text: "never" });
    const r = await drain(provider().stream(ask({ model: "gemma2:2b", tools: [READ] })));
    assert.equal(r.error?.kind, "tools_unsupported");
    assert.equal(r.error?.status, 400);
    assert.match(r.error!.message, /gemma2:2b does not support tools/);
    assert.equal(ollama.server.completions.length, 1);
    ollama.server.reset();
    ollama.server.script(reply.toolsUnsupported());
    assert.equal((await drain(provider().stream(ask()))).error?.kind, "bad_request");
  });

  test("listModels reads /api/tags", async () => {
    assert.deepEqual(
      await provider().listModels!(),
      MODELS.map((m) => m.name),
    );
    assert.ok(ollama.server.requests.some((r) => r.path === "/api/tags"));
  });
});

describe("ollama: which API", () => {
  test("--model ollama/x speaks the native API, at OLLAMA_HOST with or without scheme and port; openai-compatible at an Ollama stays on /v1", () => {
    for (const host of [
      "127.0.0.1:9999",
      "http://127.0.0.1:9999",
      "http://127.0.0.1:9999/",
      "http://127.0.0.1:9999/v1",
    ]) {
      const r = resolveModel({ flags: { model: "ollama/m" }, env: { OLLAMA_HOST: host } });
      assert.equal(r.baseURL, "http://127.0.0.1:9999", host);
      assert.equal(r.provider.name, "ollama");
    }
    assert.equal(resolveModel({ env: { OLLAMA_HOST: "gpu-box" } }).baseURL, "http://gpu-box:11434");
    const compat = resolveModel({
      flags: { model: "openai-compatible/m", baseUrl: "http://127.0.0.1:11434/v1" },
      env: {},
    });
    assert.equal(compat.provider.name, "openai-compatible");
    assert.equal(compat.baseURL, "http://127.0.0.1:11434/v1");
    // A configured provider of type ollama speaks the native API too.
    const custom = resolveModel({
      flags: { model: "gpu/m" },
      env: {},
      config: { providers: { gpu: { type: "ollama", base_url: "gpu:1234" } } },
    });
    assert.equal(custom.provider.name, "ollama");
    assert.equal(custom.baseURL, "http://gpu:1234");
  });
});

describe("ollama: configuration reaches the request", () => {
  test("providers.ollama: think and context_windows, through resolveModel", async () => {
    const r = resolveModel({
      flags: { model: "ollama/big" },
      env: { OLLAMA_HOST: ollama.server.url },
      config: { providers: { ollama: { think: false, context_windows: { big: 40000 } } } },
      providerOptions: FAST,
    });
    ollama.server.script({ text: "ok" });
    const d = await drain(r.provider.stream({ model: "big", messages: [{ role: "user", content: "hi" }] }));
    assert.equal(d.error, undefined);
    assert.equal(ollama.server.completions[0].body.think, false);
    assert.equal(ollama.server.completions[0].body.options.num_ctx, 40000);
  });

  test("providers.ollama.think as a level (GPT-OSS takes only levels) is sent as that level", async () => {
    for (const level of ["low", "medium", "high", "max"] as const) {
      ollama.server.reset();
      const r = resolveModel({
        flags: { model: "ollama/big" },
        env: { OLLAMA_HOST: ollama.server.url },
        config: { providers: { ollama: { think: level } } },
        providerOptions: FAST,
      });
      ollama.server.script({ text: "ok" });
      const d = await drain(r.provider.stream({ model: "big", messages: [{ role: "user", content: "hi" }] }));
      assert.equal(d.error, undefined);
      assert.equal(ollama.server.completions[0].body.think, level);
    }
  });
});

// ---- rt run, as a user runs it -------------------------------------------------------------

const env = () => ollama.env();

describe("rt run --model ollama/...", () => {
  test("a multi-step run reads and edits a file over /api/chat; tool calls and results round-trip", async () => {
    const root = tempTree({ "src/calc.py": "def add(a, b):\n    return a - b\n" });
    ollama.server.script(
      { reasoning: "Read it first.", toolCalls: [{ name: "read", arguments: { path: "src/calc.py" } }] },
      reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
      reply.text("Fixed src/calc.py:2."),
    );
    const r = await rt(["run", "--model", "ollama/test-model", "--approval", "auto", "fix add"], {
      cwd: root,
      env: env(),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Fixed src/calc.py:2.\n");
    assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
    assert.deepEqual(
      ollama.server.completions.map((c) => [c.path, c.body.options.num_ctx, c.body.tools.length > 0]),
      [
        ["/api/chat", 32768, true],
        ["/api/chat", 32768, true],
        ["/api/chat", 32768, true],
      ],
    );
    assert.equal(
      ollama.server.requests.some((q) => q.path.startsWith("/v1")),
      false,
      "nothing went to /v1",
    );
    const second = ollama.server.completions[1].body.messages;
    const asked = second.find((m: { role: string }) => m.role === "assistant");
    assert.equal(asked.thinking, "Read it first.");
    assert.equal(asked.tool_calls.length, 1);
    assert.deepEqual(asked.tool_calls[0].function, { name: "read", arguments: { path: "src/calc.py" } });
    const result = second.find((m: { role: string }) => m.role === "tool");
    assert.equal(result.tool_name, "read");
    assert.equal(result.tool_call_id, asked.tool_calls[0].id);
    assert.match(result.content, /return a - b/);
    const third = ollama.server.completions[2].body.messages;
    const edit = third.filter((m: { role: string }) => m.role === "assistant").at(-1);
    assert.deepEqual(edit.tool_calls[0].function.arguments, {
      path: "src/calc.py",
      old_string: "return a - b",
      new_string: "return a + b",
    });
    assert.equal(third.at(-1).role, "tool");
    assert.equal(third.at(-1).tool_name, "edit");
  });

  test("num_ctx is the window rt budgets for: agent.context_window > providers.ollama.context_windows > /api/show (capped) > default", async () => {
    const cases: Array<[string, unknown, number]> = [
      ["test-model", undefined, 32768],
      ["big", undefined, 32768],
      ["tuned", undefined, 8192],
      ["bare", undefined, DEFAULT_CONTEXT_WINDOW],
      ["big", { providers: { ollama: { context_windows: { big: 65536 } } } }, 65536],
      ["big", { agent: { context_window: 24000 }, providers: { ollama: { context_windows: { big: 65536 } } } }, 24000],
    ];
    for (const [model, config, want] of cases) {
      const root = tempTree(config ? { ".rt/config.json": JSON.stringify(config) } : {});
      // Windows above rt's default apply from a trusted project only (test/security/trust-outside-attacks.test.ts covers untrusted ones).
      if (config) trustFolder(root, env() as NodeJS.ProcessEnv);
      ollama.server.reset();
      ollama.server.script(reply.text("ok"));
      const r = await rtMain(["run", "--model", `ollama/${model}`, "--output-format", "stream-json", "hi"], {
        cwd: root,
        env: env(),
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(ollama.server.completions[0].body.options.num_ctx, want, `${model} ${JSON.stringify(config)}`);
    }
  });

  test("--protocol auto: a model without tool support falls back to text mode and finishes", async () => {
    const root = tempTree({ "a.txt": "hello\n" });
    ollama.server.script(
      reply.toolsUnsupported(),
      reply.text("Look:\n\n```bash\nrt read a.txt\n```\n"),
      reply.text("It says hello."),
    );
    const r = await rtMain(
      ["run", "--model", "ollama/test-model", "--protocol", "auto", "--approval", "auto", "read a.txt"],
      { cwd: root, env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "It says hello.\n");
    const [first, second, third] = ollama.server.completions;
    assert.ok(first.body.tools?.length);
    assert.equal(second.body.tools, undefined);
    assert.match(second.body.messages[0].content, /fenced bash blocks/);
    assert.match(JSON.stringify(third.body.messages), /1: hello/);
    for (const c of ollama.server.completions) assert.equal(c.body.options.num_ctx, 32768);
  });

  test("a stream that breaks mid-answer: rt reports it and the session keeps the text", async () => {
    const root = tempTree({});
    ollama.server.script({ text: ["Partial ", "answer ", "here"], breakAfter: 2 });
    const r = await rtMain(["run", "--model", "ollama/test-model", "--output-format", "stream-json", "hi"], {
      cwd: root,
      env: env(),
    });
    assert.equal(r.code, 1);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(
      events
        .filter((e) => e.type === "text")
        .map((e) => e.delta)
        .join(""),
      "Partial answer ",
    );
    assert.equal(events.at(-1).type, "error");
    assert.equal(events.at(-1).kind, "stream_broken");
    ollama.server.reset();
    ollama.server.script(reply.text("Continuing."));
    const r2 = await rtMain(["run", "--model", "ollama/test-model", "--continue", "go on"], {
      cwd: root,
      env: env(),
    });
    assert.equal(r2.code, 0, r2.stderr);
    const assistant = ollama.server.completions[0].body.messages.find((m: { role: string }) => m.role === "assistant");
    assert.match(assistant.content, /^Partial answer /);
  });
});

describe("ollama: a server without the native chat API", () => {
  test("a plain 404 from /api/chat (not Ollama's model-not-found) switches to the server's OpenAI-compatible /v1 for good", async () => {
    const v1Only = await startLlmServer({ models: MODELS, openaiOnly: true });
    try {
      const p = createOllamaProvider({ baseURL: v1Only.url, ...FAST });
      v1Only.script({ text: "first" }, { text: "second" });
      const first = await drain(p.stream(ask()));
      assert.equal(first.error, undefined);
      assert.equal(first.text, "first");
      const second = await drain(p.stream(ask()));
      assert.equal(second.text, "second");
      const paths = v1Only.requests.filter((r) => r.method === "POST").map((r) => r.path);
      assert.deepEqual(paths, ["/api/chat", "/v1/chat/completions", "/v1/chat/completions"]);
      assert.deepEqual(
        await p.listModels!(),
        MODELS.map((m) => m.name),
        "no /api/tags: the models of /v1/models",
      );
    } finally {
      await v1Only.close();
    }
  });

  test("rt run with OLLAMA_HOST at an OpenAI-compatible server and no --model: its first model, through /v1", async () => {
    const v1Only = await startLlmServer({ openaiOnly: true });
    try {
      const root = tempTree({ "a.txt": "hi\n" });
      v1Only.script(reply.toolCall("read", { path: "a.txt" }), reply.text("It says hi."));
      const r = await rtMain(["run", "What does a.txt say?"], {
        cwd: root,
        env: { ...env(), OLLAMA_HOST: v1Only.url },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /It says hi\./);
      assert.equal(v1Only.completions.at(-1)!.path, "/v1/chat/completions");
      assert.equal(v1Only.completions.at(-1)!.body.model, "test-model");
    } finally {
      await v1Only.close();
    }
  });

  test("Ollama's own 404 for a model it does not have is reported, not retried through /v1", async () => {
    ollama.server.script({ status: 404, message: 'model "nope" not found, try pulling it first' });
    const r = await drain(provider().stream(ask({ model: "nope" })));
    assert.equal(r.error?.kind, "model_not_found");
    assert.deepEqual(
      ollama.server.requests.filter((q) => q.method === "POST").map((q) => q.path),
      ["/api/chat"],
    );
  });
});

test("ollama: the /api/show probe carries the provider's key, like every other request (behind an authenticating proxy)", async () => {
  const guarded = await startLlmServer({ models: MODELS, requireKey: "sekret" });
  try {
    const p = createOllamaProvider({ baseURL: guarded.url, apiKey: "sekret", ...FAST });
    assert.equal(await p.contextWindow!("tuned"), 8192);
    const show = guarded.requests.find((r) => r.path === "/api/show")!;
    assert.equal(show.headers.authorization, "Bearer sekret");
  } finally {
    await guarded.close();
  }
});
