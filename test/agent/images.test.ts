// Images from read reach the model in each provider's documented request shape
// (issue 16), checked on what the scripted model server received:
//   OpenAI chat completions: a tool message's content is text only, so the image
//     follows the tool results in a user message, as a content part
//     {type: "image_url", image_url: {url: "data:image/png;base64,..."}}.
//   Anthropic Messages: inside the tool_result block, content [{type: "text"},
//     {type: "image", source: {type: "base64", media_type, data}}].
//   Ollama /api/chat: `images: [base64]` on the message.
// A model without vision (Ollama's /api/show capabilities without "vision", a
// model rt knows nothing of) gets the text note instead. The session log keeps
// the image with the tool message.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import sharp from "sharp";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { makeAgent, collect, last, anthropicProvider } from "./harness.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { createOllamaProvider } from "../../src/agent/providers/ollama.ts";
import type { Provider } from "../../src/agent/providers/types.ts";

let server: LlmServer;
let png: Buffer;
let b64: string;
before(async () => {
  server = await startLlmServer({
    models: [
      { name: "eyes", contextLength: 32768, capabilities: ["completion", "tools", "vision"] },
      { name: "blind", contextLength: 32768 },
    ],
  });
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c04020" } })
    .png()
    .toBuffer();
  b64 = png.toString("base64");
});
after(() => server.close());
beforeEach(() => server.reset());

const FAST = { retry: { maxRetries: 0 } };

async function runRead(provider: Provider, model: string, label: string) {
  const root = tempTree({ "pic.png": png, "notes.txt": "hello\n" });
  server.script(
    {
      toolCalls: [
        { id: "call_img", name: "read", arguments: { path: "pic.png" } },
        { id: "call_txt", name: "read", arguments: { path: "notes.txt" } },
      ],
    },
    reply.text("A red rectangle."),
  );
  const agent = makeAgent(root, server, { provider, model, modelLabel: label });
  const events = await collect(agent.run("what is in pic.png?"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const file = agent.sessionFile;
  agent.close();
  return { second: server.completions[1].body, file };
}

test("OpenAI chat completions: the tool messages stay text; a user message after them carries the image as an image_url data URL", async () => {
  const { second, file } = await runRead(
    createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ...FAST, vision: true }),
    "eyes",
    "openai-compatible/eyes",
  );
  const msgs = second.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
  const firstTool = msgs.findIndex((m) => m.role === "tool");
  // Read-only calls run in parallel: their results come in the order they finish.
  assert.deepEqual(
    msgs
      .slice(firstTool)
      .map((m) => [m.role, m.tool_call_id ?? ""])
      .sort(),
    [
      ["tool", "call_img"],
      ["tool", "call_txt"],
      ["user", ""],
    ],
  );
  assert.equal(msgs[firstTool - 1].role, "assistant");
  assert.equal(msgs.at(-1)!.role, "user", "both tool results right after the assistant message, then the images");
  assert.match(
    msgs.find((m) => m.tool_call_id === "call_img")!.content as string,
    /^pic\.png: PNG image, \d+ bytes, 40x30 pixels$/,
  );
  assert.deepEqual(msgs.at(-1)!.content, [
    { type: "text", text: "The image returned by read (tool call call_img):" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${b64}` } },
  ]);
  // The session log keeps the image with its tool message.
  const logged = fs
    .readFileSync(file!, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .find((e) => e.t === "message" && e.message.role === "tool" && e.message.toolCallId === "call_img");
  assert.deepEqual(logged.message.images, [{ mediaType: "image/png", data: b64, width: 40, height: 30 }]);
});

test("Anthropic Messages: the image block is inside the tool_result's content", async () => {
  const { second } = await runRead(anthropicProvider(server), "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5");
  const user = (second.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).at(-1)!;
  assert.equal(user.role, "user");
  const results = user.content
    .filter((b) => b.type === "tool_result")
    .sort((a, b) => String(a.tool_use_id).localeCompare(String(b.tool_use_id)));
  assert.equal(results.length, 2);
  // The prompt-cache marker the last block of the message carries is not part of this check.
  const { cache_control: _marker, ...first } = results[0];
  assert.deepEqual(first, {
    type: "tool_result",
    tool_use_id: "call_img",
    content: [
      { type: "text", text: (results[0].content as Array<{ text: string }>)[0].text },
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64 } },
    ],
  });
  assert.match((results[0].content as Array<{ text: string }>)[0].text, /^pic\.png: PNG image/);
  assert.equal(typeof results[1].content, "string", "a result without images stays a string");
});

test("Ollama /api/chat: a model whose capabilities include vision gets images: [base64] on the tool message", async () => {
  const { second } = await runRead(createOllamaProvider({ baseURL: server.url, ...FAST }), "eyes", "ollama/eyes");
  const tools = (
    second.messages as Array<{
      role: string;
      images?: string[];
      tool_name?: string;
      tool_call_id?: string;
      content: string;
    }>
  )
    .filter((m) => m.role === "tool")
    .sort((a, b) => String(a.tool_call_id).localeCompare(String(b.tool_call_id)));
  assert.deepEqual(tools[0].images, [b64]);
  assert.equal(tools[0].tool_name, "read");
  assert.equal(tools[1].images, undefined);
  assert.ok(
    server.requests.some((r) => r.path === "/api/show" && r.body?.model === "eyes"),
    "asked Ollama what the model can do",
  );
});

test("a model without vision gets a note: Ollama without the capability, a model rt does not know", async () => {
  const ollama = await runRead(createOllamaProvider({ baseURL: server.url, ...FAST }), "blind", "ollama/blind");
  const tool = (
    ollama.second.messages as Array<{ role: string; images?: string[]; content: string; tool_call_id?: string }>
  ).find((m) => m.tool_call_id === "call_img")!;
  assert.equal(tool.images, undefined);
  assert.match(
    tool.content,
    /\n\(The image itself is not shown: the model ollama\/blind does not take images \(set providers\.ollama\.vision: true if it does\)\.\)$/,
  );
  server.reset();
  const unknown = await runRead(
    createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ...FAST }),
    "some-local-model",
    "vllm/some-local-model",
  );
  const msgs = unknown.second.messages as Array<{ role: string; content: unknown }>;
  assert.ok(!JSON.stringify(msgs).includes(b64.slice(0, 40)));
  assert.match(
    (msgs as Array<{ tool_call_id?: string; content: unknown }>).find((m) => m.tool_call_id === "call_img")!
      .content as string,
    /rt cannot tell whether the model vllm\/some-local-model takes images \(set providers\.vllm\.vision: true, or a list of model names, if it does\)/,
  );
  server.reset();
  const listed = await runRead(
    createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ...FAST, vision: ["other", "some-local-*"] }),
    "some-local-model",
    "vllm/some-local-model",
  );
  assert.ok(
    JSON.stringify(listed.second.messages).includes(`data:image/png;base64,${b64}`),
    "a configured list names the model by prefix",
  );
});

test("after /model switches to a model without vision, the images already in the history are left out of its requests, with a note", async () => {
  const root = tempTree({ "pic.png": png });
  const ollama = createOllamaProvider({ baseURL: server.url, ...FAST });
  server.script(reply.toolCall("read", { path: "pic.png" }), reply.text("A red rectangle."), reply.text("Still red."));
  const agent = makeAgent(root, server, { provider: ollama, model: "eyes", modelLabel: "ollama/eyes" });
  await collect(agent.run("what is in pic.png?"));
  assert.deepEqual(
    (server.completions[1].body.messages as Array<{ images?: string[] }>).find((m) => m.images)?.images,
    [b64],
  );
  agent.setModel(ollama, "blind", "ollama/blind");
  const events = await collect(agent.run("and now?"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const sent = server.completions[2].body.messages as Array<{ role: string; images?: string[]; content: string }>;
  assert.ok(sent.every((m) => m.images === undefined));
  assert.match(
    sent.find((m) => m.role === "tool")!.content,
    /\[1 image left out: the model ollama\/blind does not take images/,
  );
  agent.close();
});

test("only the newest 20 images of the conversation go with a request; the older are noted as left out", async () => {
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < 22; i++) files[`p${i}.png`] = png;
  const root = tempTree(files);
  server.script(
    {
      toolCalls: Array.from({ length: 22 }, (_, i) => ({
        id: `c${i}`,
        name: "read",
        arguments: { path: `p${i}.png` },
      })),
    },
    reply.text("22 rectangles."),
  );
  const agent = makeAgent(root, server, {
    provider: createOllamaProvider({ baseURL: server.url, ...FAST }),
    model: "eyes",
    modelLabel: "ollama/eyes",
  });
  await collect(agent.run("look at them all"));
  const sent = server.completions[1].body.messages as Array<{
    role: string;
    images?: string[];
    content: string;
    tool_call_id?: string;
  }>;
  const tools = sent.filter((m) => m.role === "tool");
  assert.equal(tools.length, 22);
  assert.equal(tools.filter((m) => m.images?.length === 1).length, 20);
  const left = tools.filter((m) => !m.images);
  assert.equal(left.length, 2);
  assert.ok(
    left.every((m) => /\[1 image left out: only the newest 20 images of the conversation are sent/.test(m.content)),
  );
  // The oldest are the ones left out (the messages come in the order of the calls).
  assert.deepEqual(
    tools.slice(0, 2).map((m) => m.images),
    [undefined, undefined],
  );
  agent.close();
});
