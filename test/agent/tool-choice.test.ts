// Tool choice on the wire: chat completions send tool_choice "auto" | "required" | "none";
// Anthropic sends tool_choice {type: auto | any | none} (and no thinking with a forced tool,
// which its API refuses); nothing is sent without tools. Then `rt run --tool-choice required`
// end to end: the first request of the turn requires a call, the next one is auto.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, type LlmServer } from "../llm-server.ts";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import type { ToolChoice, ToolSpec } from "../../src/agent/providers/types.ts";
import { rt, tempTree } from "../helpers.ts";
import { drain, FAST } from "./providerHelpers.ts";

const READ: ToolSpec = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
let server: LlmServer;
before(async () => {
  server = await startLlmServer({ models: [{ name: "m" }] });
});
after(() => server.close());

describe("tool choice on the wire", () => {
  for (const [choice, openai, anthropic] of [
    ["auto", "auto", { type: "auto" }],
    ["required", "required", { type: "any" }],
    ["none", "none", { type: "none" }],
  ] as Array<[ToolChoice, string, object]>) {
    test(`${choice}: chat completions "${openai}", Anthropic ${JSON.stringify(anthropic)}`, async () => {
      server.reset();
      server.script({ text: "ok" }, { text: "ok" }, { text: "ok" });
      const oa = createOpenAICompatibleProvider({
        baseURL: server.openaiBaseUrl,
        apiKey: "k",
        target: "t",
        name: "openai-compatible",
        ...FAST,
      });
      await drain(
        oa.stream({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [READ], toolChoice: choice }),
      );
      const an = createAnthropicProvider({
        baseURL: server.anthropicBaseUrl,
        apiKey: "k",
        target: "t",
        thinkingBudgetTokens: 2048,
        ...FAST,
      });
      await drain(
        an.stream({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [READ], toolChoice: choice }),
      );
      await drain(oa.stream({ model: "m", messages: [{ role: "user", content: "hi" }], toolChoice: choice }));
      const [a, b, c] = server.completions;
      assert.equal(a.body.tool_choice, openai);
      assert.deepEqual(b.body.tool_choice, anthropic);
      assert.equal(b.body.thinking === undefined, choice === "required", "thinking only when no tool is forced");
      assert.equal("tool_choice" in c.body, false, "no tools, no tool_choice");
    });
  }
});

describe("rt run --tool-choice", () => {
  test("required holds for the turn's first request; the next is auto; a bad value is refused naming the valid ones", async () => {
    const cwd = tempTree({ "a.txt": "a\n" });
    server.reset();
    server.script({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" });
    const env = { OPENAI_API_KEY: "k" };
    const r = await rt(
      [
        "run",
        "--model",
        "openai-compatible/m",
        "--base-url",
        server.openaiBaseUrl,
        "--tool-choice",
        "required",
        "--approval",
        "plan",
        "go",
      ],
      { cwd, env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      server.completions.map((q) => q.body.tool_choice),
      ["required", "auto"],
    );
    const bad = await rt(["run", "--tool-choice", "always", "go"], { cwd, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--tool-choice must be one of auto, required, none, not "always"/);
  });
});
