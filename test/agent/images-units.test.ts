// The pure parts of images in the agent (issue 16): each provider's message
// shape for images on tool and user messages, requestMessages in text mode,
// the vision settings, and the token estimate of an image.
import { test } from "node:test";
import assert from "node:assert/strict";
import { toOpenAIMessages } from "../../src/agent/providers/openaiMessages.ts";
import { toAnthropicMessages } from "../../src/agent/providers/anthropicMessages.ts";
import { toOllamaMessages } from "../../src/agent/providers/ollamaMessages.ts";
import { configuredVision, knownVision } from "../../src/agent/providers/vision.ts";
import { requestMessages } from "../../src/agent/requestMessages.ts";
import { estimateMessageTokens } from "../../src/agent/tokens.ts";
import { providerImageLimits } from "../../src/agent/imageInput.ts";
import type { ChatImage, ChatMessage } from "../../src/agent/providers/types.ts";

const A: ChatImage = { mediaType: "image/png", data: "QUFB", width: 750, height: 10 };
const B: ChatImage = { mediaType: "image/jpeg", data: "QkJC", width: 20, height: 20 };

const turn: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "look" },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { id: "c1", name: "read", arguments: '{"path":"a.png"}' },
      { id: "c2", name: "read", arguments: '{"path":"b.pdf","as_images":true}' },
      { id: "c3", name: "grep", arguments: '{"pattern":"x"}' },
    ],
  },
  { role: "tool", toolCallId: "c1", name: "read", content: "a.png: PNG image", images: [A] },
  { role: "tool", toolCallId: "c2", name: "read", content: "b.pdf: 2 pages", images: [A, B] },
  { role: "tool", toolCallId: "c3", name: "grep", content: "no match" },
  { role: "user", content: "and?" },
];

test("OpenAI: every tool message first, text only; then one user message with each call's images; the next user message after", () => {
  const out = toOpenAIMessages(turn);
  assert.deepEqual(
    out.map((m) => m.role),
    ["system", "user", "assistant", "tool", "tool", "tool", "user", "user"],
  );
  assert.deepEqual(out[3], { role: "tool", tool_call_id: "c1", content: "a.png: PNG image" });
  assert.deepEqual(out[6], {
    role: "user",
    content: [
      { type: "text", text: "The image returned by read (tool call c1):" },
      { type: "image_url", image_url: { url: "data:image/png;base64,QUFB" } },
      { type: "text", text: "The 2 images returned by read (tool call c2):" },
      { type: "image_url", image_url: { url: "data:image/png;base64,QUFB" } },
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,QkJC" } },
    ],
  });
  assert.deepEqual(out[7], { role: "user", content: "and?" });
  // A user message with images (text mode) is text then image parts.
  assert.deepEqual(toOpenAIMessages([{ role: "user", content: "see", images: [B] }]), [
    {
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,QkJC" } },
      ],
    },
  ]);
});

test("Anthropic: images inside their tool_result; a result without images stays a string; user images after the text", () => {
  const { messages } = toAnthropicMessages(turn);
  const results = messages[2].content;
  assert.deepEqual(results[0], {
    type: "tool_result",
    tool_use_id: "c1",
    content: [
      { type: "text", text: "a.png: PNG image" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "QUFB" } },
    ],
  });
  assert.equal((results[1] as { content: unknown[] }).content.length, 3);
  assert.deepEqual(results[2], { type: "tool_result", tool_use_id: "c3", content: "no match" });
  assert.deepEqual(results[3], { type: "text", text: "and?" });
  const user = toAnthropicMessages([{ role: "user", content: "see", images: [B] }]).messages[0];
  assert.deepEqual(user.content, [
    { type: "text", text: "see" },
    { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "QkJC" } },
  ]);
});

test("Ollama: images (bare base64) on the message they belong to", () => {
  const out = toOllamaMessages(turn) as Array<{ role: string; images?: string[] }>;
  assert.deepEqual(out[3].images, ["QUFB"]);
  assert.deepEqual(out[4].images, ["QUFB", "QkJC"]);
  assert.equal(out[5].images, undefined);
  assert.deepEqual(
    (toOllamaMessages([{ role: "user", content: "see", images: [B] }])[0] as { images?: string[] }).images,
    ["QkJC"],
  );
});

test("text mode: a tool result becomes user text with its images; joined user messages keep all of them", () => {
  const out = requestMessages(
    "sys",
    turn.slice(1).map((message, i) => ({ i, message })),
    "text",
  );
  const users = out.filter((m): m is Extract<ChatMessage, { role: "user" }> => m.role === "user");
  const joined = users[users.length - 1];
  assert.match(joined.content, /\[rt\] Output of read:\na\.png: PNG image\n\n\[rt\] Output of read:\nb\.pdf/);
  assert.deepEqual(joined.images, [A, A, B]);
});

test("vision settings: configuration first (true, false, names with * prefixes), then the table of hosted models", () => {
  assert.equal(configuredVision(undefined, "m"), undefined);
  assert.equal(configuredVision(false, "gpt-4o"), false);
  assert.equal(configuredVision(["llava*", "qwen2.5vl:7b"], "llava:13b"), true);
  assert.equal(configuredVision(["llava*", "qwen2.5vl:7b"], "qwen2.5vl:3b"), false);
  assert.equal(knownVision("gpt-4o-mini"), true);
  assert.equal(knownVision("openai/gpt-4.1"), true);
  assert.equal(knownVision("o3-mini"), false);
  assert.equal(knownVision("o3"), true);
  assert.equal(knownVision("gpt-3.5-turbo"), false);
  assert.equal(knownVision("claude-sonnet-4-5"), true);
  assert.equal(knownVision("qwen2.5-coder:7b"), undefined);
});

test("limits per provider; an image costs tokens by its pixels, not its base64", () => {
  assert.deepEqual(providerImageLimits("anthropic").maxEdge, 1568);
  assert.deepEqual(providerImageLimits("openai").maxEdge, 2048);
  assert.deepEqual(providerImageLimits("ollama").formats, ["image/png", "image/jpeg"]);
  const plain = estimateMessageTokens({ role: "tool", toolCallId: "c", name: "read", content: "x".repeat(40) });
  const withImage = estimateMessageTokens({
    role: "tool",
    toolCallId: "c",
    name: "read",
    content: "x".repeat(40),
    images: [{ ...A, data: "Q".repeat(1_000_000) }],
  });
  assert.equal(withImage - plain, 10, "750 x 10 pixels / 750");
});
