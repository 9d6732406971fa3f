// The wire format's ground truth: real recorded provider responses (SDK test
// fixtures, recorded API traffic, vendor documentation; test/fixtures/replay/
// manifest.json names the source of each) replayed over loopback to
// `rt run --output-format stream-json`: every recording through the built
// CLI's own `main` in one long-lived process (test/rtMain.ts: the same
// parsing, set-up, provider code and output), and one per wire format through
// the real executable as well (every one under RT_SOAK=1). For each recording the test checks
// what rt reports (events, exit code, the finish reason of the model turn, the
// text and reasoning as the recording has them, usage, tool calls), the headers
// of every request (the key where the provider's reference puts it, nothing the
// client libraries pick from the environment on their own), and the follow-up
// request rt sends, against the provider's documented schema: roles, tool call
// ids paired with their results, thinking blocks returned unchanged and in
// order, reasoning fields where the provider requires them.
//
// test/llm-server.ts (the scripted server) stays for multi-turn scenarios; where
// the two disagree, the recordings win.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, SOAK, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import {
  loadManifest,
  startReplayServer,
  type ManifestEntry,
  type ReplayServer,
  type SeenRequest,
} from "./replayServer.ts";
import { readRecording, type RecordedAnswer } from "./replayRead.ts";

const manifest = loadManifest();
const byId = new Map(manifest.map((e) => [e.id, e]));
const entry = (id: string) => {
  const e = byId.get(id);
  if (!e) throw new Error(`no recording ${id}`);
  return e;
};

/** What answers a follow-up request, per protocol (short, finished answers). */
const NEXT: Record<string, ManifestEntry> = {
  chat: entry("mistral-text"),
  anthropic: entry("anthropic-text"),
  ollama: entry("ollama-docs-chat-stream"),
  responses: entry("oair-text-after-tools"),
};
const protocolOf = (e: ManifestEntry) =>
  e.provider === "anthropic"
    ? "anthropic"
    : e.provider === "ollama"
      ? "ollama"
      : e.provider === "openai-responses"
        ? "responses"
        : "chat";

/** Variables through which the client libraries would pick credentials or headers of their own: none may reach a request. */
const POISON = {
  OPENAI_ADMIN_KEY: "sk-admin-leak",
  OPENAI_CUSTOM_HEADERS: "X-Leak: openai-custom-headers",
  OPENAI_ORG_ID: "org-leak",
  OPENAI_PROJECT_ID: "proj-leak",
  ANTHROPIC_CUSTOM_HEADERS: "X-Leak: anthropic-custom-headers",
  ANTHROPIC_AUTH_TOKEN: "leak-auth-token",
};

const KEYS: Record<string, string> = {
  openai: "sk-replay-openai",
  deepseek: "sk-replay-deepseek",
  openrouter: "sk-or-replay",
  anthropic: "sk-ant-replay",
  "openai-responses": "sk-replay-openai-responses",
};

let server: ReplayServer;
before(async () => {
  server = await startReplayServer();
});
after(() => server.close());
beforeEach(() => server.reset());

function modelFor(e: ManifestEntry, rec: RecordedAnswer): string {
  if (e.id === "openai-temperature-400") return "chat-deployment"; // an Azure-style deployment name no documented list can know
  return rec.model ?? (e.provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-5");
}

function invocation(e: ManifestEntry, model: string): { args: string[]; env: Record<string, string | undefined> } {
  const url = server.url;
  const base = {
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    OPENROUTER_API_KEY: undefined,
    OLLAMA_HOST: undefined,
    ...POISON,
  };
  switch (e.provider) {
    case "openai":
      return e.id === "openai-temperature-400"
        ? {
            args: ["--model", `openai-compatible/${model}`, "--base-url", `${url}/v1`, "--api-key", KEYS.openai],
            env: base,
          }
        : {
            args: ["--model", `openai/${model}`],
            env: { ...base, OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: KEYS.openai },
          };
    case "openai-compatible":
      return { args: ["--model", `openai-compatible/${model}`, "--base-url", `${url}/v1`], env: base };
    case "deepseek":
      return {
        args: ["--model", `openai-compatible/${model}`, "--base-url", `${url}/v1`, "--api-key", KEYS.deepseek],
        env: base,
      };
    case "openrouter":
      return {
        args: ["--model", `openrouter/${model}`, "--base-url", `${url}/api/v1`, "--api-key", KEYS.openrouter],
        env: base,
      };
    case "anthropic":
      return {
        args: ["--model", `anthropic/${model}`],
        env: { ...base, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: KEYS.anthropic },
      };
    case "ollama":
      return { args: ["--model", `ollama/${model}`], env: { ...base, OLLAMA_HOST: url } };
    case "openai-responses":
      // The codex models (gpt-5.1-codex-max, gpt-5.3-codex) are served on the Responses API only: rt's `openai`
      // provider chooses it by itself. Any other model gets it through the `openai-responses` provider.
      return {
        args: ["--model", `${/codex/.test(model) ? "openai" : "openai-responses"}/${model}`],
        env: { ...base, OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: KEYS["openai-responses"] },
      };
  }
}

/** The headers every request of this provider must (and must not) carry. */
function checkHeaders(e: ManifestEntry, r: SeenRequest) {
  const h = r.headers;
  const where = `${e.id}: ${r.method} ${r.path}`;
  for (const [name, value] of Object.entries(h))
    assert.doesNotMatch(
      `${name}: ${String(value)}`,
      /leak/i,
      `${where}: a header from the environment reached the request`,
    );
  if (r.method === "POST") assert.match(String(h["content-type"]), /^application\/json/, where);
  const key = e.id === "openai-temperature-400" ? KEYS.openai : KEYS[e.provider];
  if (e.provider === "anthropic") {
    // Anthropic's API reference: the API key in x-api-key; Authorization: Bearer is for federated tokens.
    assert.equal(h["x-api-key"], KEYS.anthropic, where);
    assert.equal(h.authorization, undefined, where);
    assert.match(String(h["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/, where);
  } else if (key) {
    assert.equal(h.authorization, `Bearer ${key}`, where);
    assert.equal(h["x-api-key"], undefined, where);
  } else {
    // A local server without a key gets no Authorization header at all (no placeholder key).
    assert.equal(h.authorization, undefined, where);
    assert.equal(h["x-api-key"], undefined, where);
  }
}

type Ev = Record<string, any>;

function parseEvents(stdout: string): Ev[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Ev);
}

/** The events of the first model turn (up to its model_turn_end). */
function firstTurn(events: Ev[]): { events: Ev[]; end: Ev } {
  const i = events.findIndex((ev) => ev.type === "model_turn_end");
  assert.ok(i >= 0, `no model_turn_end in ${JSON.stringify(events.map((e) => e.type))}`);
  return { events: events.slice(0, i), end: events[i] };
}

// ---- the documented request schemas ------------------------------------------------

/** Chat completions: roles, tool_calls paired in order with tool messages, string contents, reasoning only on assistant messages. */
function checkChatRequest(body: any, where: string) {
  assert.ok(Array.isArray(body.messages), where);
  const msgs = body.messages as any[];
  assert.equal(msgs[0].role, "system", where);
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    assert.ok(["system", "user", "assistant", "tool"].includes(m.role), `${where}: role ${m.role}`);
    if (m.role !== "assistant") {
      assert.equal(typeof m.content, "string", `${where}: message ${i} content`);
      for (const f of ["reasoning_content", "reasoning", "reasoning_details", "tool_calls"])
        assert.equal(f in m, false, `${where}: ${f} on a ${m.role} message`);
    } else {
      assert.ok(
        typeof m.content === "string" || (m.content === null && m.tool_calls?.length),
        `${where}: assistant content ${JSON.stringify(m.content)}`,
      );
    }
    if (m.role === "assistant" && m.tool_calls) {
      const ids = (m.tool_calls as any[]).map((c) => {
        assert.equal(c.type, "function", where);
        assert.equal(typeof c.id, "string", where);
        assert.ok(c.id.length > 0, where);
        assert.equal(typeof c.function.name, "string", where);
        assert.equal(typeof c.function.arguments, "string", where);
        return c.id;
      });
      const results = msgs.slice(i + 1, i + 1 + ids.length);
      assert.deepEqual(
        results.map((r) => [r.role, r.tool_call_id]),
        ids.map((id) => ["tool", id]),
        `${where}: each tool call is followed by its result, in order`,
      );
    }
    if (m.role === "tool")
      assert.ok(
        msgs.slice(0, i).some((p) => p.role === "assistant" && p.tool_calls?.some((c: any) => c.id === m.tool_call_id)),
        `${where}: orphan tool result`,
      );
  }
}

/** Messages API: alternating roles from the user, block types, signed thinking, tool_use ids answered by tool_result blocks first. */
function checkAnthropicRequest(body: any, where: string) {
  const msgs = body.messages as any[];
  assert.equal(msgs[0].role, "user", where);
  msgs.forEach((m, i) => {
    assert.equal(m.role, i % 2 === 0 ? "user" : "assistant", `${where}: roles alternate`);
    for (const b of m.content) {
      const blockTypes = [
        "text",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
      ];
      if (m.role === "assistant") assert.ok(blockTypes.includes(b.type), `${where}: block ${b.type}`);
      else assert.ok(["text", "tool_result"].includes(b.type), `${where}: block ${b.type}`);
      // The API answers 400 "text content blocks must contain non-whitespace text" (and "must be non-empty").
      if (b.type === "text")
        assert.ok(
          typeof b.text === "string" && b.text.trim() !== "",
          `${where}: empty or whitespace-only text block ${JSON.stringify(b.text)}`,
        );
      if (b.type === "thinking")
        assert.ok(
          typeof b.signature === "string" && b.signature !== "" && typeof b.thinking === "string",
          `${where}: thinking without signature`,
        );
      if (b.type === "redacted_thinking") assert.equal(typeof b.data, "string", where);
      if (b.type === "tool_use")
        assert.ok(b.input && typeof b.input === "object" && !Array.isArray(b.input), `${where}: tool_use input`);
    }
    const uses =
      m.role === "assistant" ? (m.content as any[]).filter((b) => b.type === "tool_use").map((b) => b.id) : [];
    if (uses.length) {
      const next = msgs[i + 1].content as any[];
      assert.deepEqual(
        next.slice(0, uses.length).map((b) => [b.type, b.tool_use_id]),
        uses.map((id) => ["tool_result", id]),
        `${where}: tool results come first in the next user message, one per tool_use`,
      );
    }
  });
}

/** Ollama /api/chat: roles, tool calls with object arguments, tool results named. */
function checkOllamaRequest(body: any, where: string) {
  for (const m of body.messages as any[]) {
    assert.ok(["system", "user", "assistant", "tool"].includes(m.role), where);
    assert.equal(typeof m.content, "string", where);
    for (const c of m.tool_calls ?? [])
      assert.ok(c.function.arguments && typeof c.function.arguments === "object", `${where}: arguments are an object`);
    if (m.role === "tool") assert.equal(typeof m.tool_name, "string", where);
  }
  assert.equal(typeof body.options?.num_ctx, "number", where);
}

/**
 * Responses API: input items of the documented types; every function_call answered by a
 * function_call_output with its call_id, after it; nothing kept on OpenAI's side (store: false), so
 * reasoning items come with their encrypted content (asked for with include).
 */
function checkResponsesRequest(body: any, where: string) {
  assert.equal(body.stream, true, where);
  assert.equal(body.store, false, where);
  assert.equal(typeof body.instructions, "string", `${where}: the system prompt as instructions`);
  assert.ok(Array.isArray(body.input), where);
  if (body.reasoning) assert.deepEqual(body.include, ["reasoning.encrypted_content"], where);
  for (const t of body.tools ?? [])
    assert.ok(
      t.type === "function" && typeof t.name === "string" && t.parameters?.type === "object",
      `${where}: tool ${JSON.stringify(t).slice(0, 100)}`,
    );
  const items = body.input as any[];
  items.forEach((it, i) => {
    if (it.type === "function_call") {
      assert.ok(
        typeof it.call_id === "string" && it.call_id && typeof it.name === "string" && typeof it.arguments === "string",
        `${where}: function_call ${i}`,
      );
      assert.ok(
        items.slice(i + 1).some((o) => o.type === "function_call_output" && o.call_id === it.call_id),
        `${where}: the result of ${it.call_id}`,
      );
    } else if (it.type === "function_call_output") {
      assert.equal(typeof it.output, "string", where);
      assert.ok(
        items.slice(0, i).some((c) => c.type === "function_call" && c.call_id === it.call_id),
        `${where}: orphan output ${it.call_id}`,
      );
    } else if (it.type === "reasoning") {
      assert.equal(typeof it.encrypted_content, "string", `${where}: reasoning item without its encrypted content`);
      assert.ok(Array.isArray(it.summary), where);
    } else if (it.type === "message") {
      assert.equal(it.role, "assistant", where);
      for (const c of it.content) assert.equal(c.type, "output_text", where);
    } else {
      assert.ok(["user", "developer"].includes(it.role), `${where}: item ${JSON.stringify(it).slice(0, 100)}`);
    }
  });
}

function checkRequest(e: ManifestEntry, body: any, where: string) {
  assert.doesNotMatch(JSON.stringify(body), /\[object Object\]/, `${where}: something was stringified`);
  const p = protocolOf(e);
  if (p === "responses") checkResponsesRequest(body, where);
  else if (p === "anthropic") checkAnthropicRequest(body, where);
  else if (p === "ollama") checkOllamaRequest(body, where);
  else checkChatRequest(body, where);
}

/** The assistant message of the replayed answer, as rt sends it back in a later request. */
function assistantSentBack(e: ManifestEntry, body: any): any {
  const msgs = body.messages as any[];
  const i = msgs.findIndex((m) => m.role === "assistant");
  assert.ok(i >= 0, `${e.id}: no assistant message in the follow-up`);
  return msgs[i];
}

/** How the replayed answer must look when it goes back: its text, its calls, and the reasoning its provider requires. */
function checkSentBack(e: ManifestEntry, rec: RecordedAnswer, body: any, withToolTurn: boolean) {
  const where = `${e.id}: the answer sent back`;
  const p = protocolOf(e);
  if (p === "responses") {
    const items = body.input as any[];
    // The reasoning items exactly as the stream gave them (id, summary, encrypted content), before the calls.
    assert.deepEqual(
      items.filter((it) => it.type === "reasoning").map((it) => [it.id, it.encrypted_content, it.summary]),
      rec.reasoningItems!.map((it) => [it.id, it.encrypted_content, it.summary]),
      where,
    );
    assert.deepEqual(
      items.filter((it) => it.type === "function_call").map((it) => [it.call_id, it.name, it.arguments]),
      rec.toolCalls.map((c) => [c.id, c.name, c.args]),
      where,
    );
    const text = items
      .filter((it) => it.type === "message")
      .map((it) => it.content.map((c: any) => c.text).join(""))
      .join("");
    assert.ok(text.startsWith(rec.text), `${where}: text`);
    return items;
  }
  const a = assistantSentBack(e, body);
  if (p === "anthropic") {
    const blocks = a.content as any[];
    // Thinking and redacted thinking: exactly as received, in order (an empty thinking text keeps its signature).
    assert.deepEqual(
      blocks.filter((b) => b.type === "thinking" || b.type === "redacted_thinking"),
      rec.thinkingBlocks,
      where,
    );
    const firstOther = blocks.findIndex((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
    const lastThinking = blocks.map((b) => b.type).lastIndexOf("thinking");
    if (rec.thinkingBlocks.length && firstOther >= 0)
      assert.ok(lastThinking < firstOther || rec.thinkingBlocks.length === 0, `${where}: thinking first`);
    assert.deepEqual(
      blocks.filter((b) => b.type === "tool_use").map((b) => [b.id, b.name, b.input]),
      rec.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.args || "{}")]),
      where,
    );
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("");
    // The text blocks as they came, less those with nothing but whitespace (the API refuses them).
    const kept = (rec.textBlocks ?? [rec.text]).filter((t) => t.trim() !== "").join("");
    assert.ok(text.startsWith(kept), `${where}: text ${JSON.stringify(text.slice(0, 200))}`);
    return a;
  }
  if (p === "ollama") {
    assert.equal(a.content.startsWith(rec.text), true, where);
    assert.deepEqual(
      (a.tool_calls ?? []).map((c: any) => [c.function.name, c.function.arguments]),
      rec.toolCalls.map((c) => [c.name, JSON.parse(c.args)]),
      where,
    );
    return a;
  }
  assert.ok(
    rec.text === ""
      ? a.content === null || a.content === "" || a.content.startsWith("[rt:")
      : String(a.content).startsWith(rec.text),
    `${where}: content ${JSON.stringify(a.content)}`,
  );
  assert.deepEqual(
    (a.tool_calls ?? []).map((c: any) => [c.id, c.function.name, c.function.arguments]),
    // Arguments go back as the model sent them; a call sent with none goes back as "{}" (a JSON object, as the schema wants).
    rec.toolCalls.map((c) => [c.id, c.name, c.args || "{}"]),
    where,
  );
  // A call's extra_content (Gemini's thought signature) comes back on it unchanged: Gemini answers 400 without it.
  assert.deepEqual(
    (a.tool_calls ?? []).map((c: any) => c.extra_content),
    rec.toolCalls.map((c) => c.extra),
    `${where}: extra_content`,
  );
  if (withToolTurn && rec.reasoningDetails)
    assert.ok(Array.isArray(a.reasoning_details) && a.reasoning_details.length > 0, `${where}: reasoning_details`);
  if (withToolTurn && rec.reasoningField) {
    // DeepSeek's thinking mode requires it on turns with tool calls (400 without); sent in the field it came in.
    assert.equal(a[rec.reasoningField], rec.reasoning, `${where}: ${rec.reasoningField}`);
  } else {
    for (const f of ["reasoning_content", "reasoning", "reasoning_details"])
      assert.equal(f in a, false, `${where}: ${f} outside a tool-calling turn`);
    // Reasoning read from <think> tags is not sent back as answer text.
    if (rec.reasoning) assert.ok(!String(a.content).includes("<think>"), `${where}: <think> in the content`);
  }
  return a;
}

/** How `rt` is run: the real executable (a Node process per run), or its `main` in the long-lived worker. */
type Runner = typeof rt;

async function runRt(run: Runner, e: ManifestEntry, root: string, configHome: string, extra: string[], prompt: string) {
  const rec = readRecording(e);
  const model = modelFor(e, rec);
  server.models = [model];
  const { args, env } = invocation(e, model);
  return run(["run", "--output-format", "stream-json", "--approval", "auto", ...extra, ...args, prompt], {
    cwd: root,
    env: {
      ...env,
      XDG_CONFIG_HOME: configHome,
      HOME: configHome,
      // Through main, no checkpoint of the tree before the turn (a git process per run, and nothing a
      // recording says): the executable's runs keep them, as a user's do.
      ...(run === rt ? {} : { RT_CHECKPOINTS: "off" }),
    },
  });
}

/** A recording's wire format: its protocol, streamed or answered whole. */
const wireFormat = (e: ManifestEntry) => `${protocolOf(e)} ${e.framing === "json" ? "whole" : "streamed"}`;

/**
 * The recordings that also go through the real `rt run` process in `npm test`: one per wire format (chat
 * completions, Anthropic's messages, Ollama's NDJSON, the Responses API; streamed and whole), with tool calls
 * and their follow-up request, a `--continue` in a second process, a configuration file and the retry
 * without temperature. Under RT_SOAK=1 every recording does.
 */
const THROUGH_CLI = new Set([
  "deepseek-thinking-stream",
  "openai-temperature-400",
  "antpy-tool-use",
  "antts-whole-message-tool",
  "ollama-docs-chat-tools",
  "oair-reasoning-tool",
]);

describe("replay: real recorded responses through rt run --output-format stream-json", () => {
  test("the manifest: at least 40 recordings, each with its provenance, every file present", () => {
    assert.ok(manifest.length >= 40, `${manifest.length} recordings`);
    const dir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "fixtures", "replay", "files");
    for (const e of manifest) {
      const s = e.source;
      assert.ok(
        (s.repo && s.path && /^[0-9a-f]{40}$/.test(s.commit ?? "")) || /^https:\/\//.test(s.url ?? ""),
        `${e.id}: provenance`,
      );
      assert.ok(fs.existsSync(path.join(dir, e.file)), `${e.id}: ${e.file}`);
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), manifest.map((e) => e.file).sort(), "every file is in the manifest");
    // The recordings that also go through the executable: each in the manifest, one of every wire format.
    assert.deepEqual(
      [...THROUGH_CLI].map((id) => wireFormat(entry(id))).sort(),
      [...new Set(manifest.map(wireFormat))].sort(),
    );
  });

  for (const e of manifest) {
    test(`${e.id} (${e.provider}, ${e.source.repo ?? e.source.url})`, () => replay(e, rtMain));
    if (SOAK || THROUGH_CLI.has(e.id)) test(`${e.id}: the same through the rt executable`, () => replay(e, rt));
  }
});

/** One recording replayed: what rt reports of it, what it sends, and what it sends next. */
async function replay(e: ManifestEntry, run: Runner) {
  const rec = readRecording(e);
  const root = tempTree({ "a.txt": "alpha\n" });
  const configHome = tempTree({}, "rt-config-");
  const follow = e.expect.followUp;
  if (follow === "sampling-retry") {
    fs.mkdirSync(path.join(configHome, "rt"), { recursive: true });
    fs.writeFileSync(path.join(configHome, "rt", "config.json"), JSON.stringify({ agent: { temperature: 0.2 } }));
  }
  server.queue(e);
  if (follow === "pause") server.queue(entry(`${e.id}-continued`));
  if (follow === "tools" || follow === "sampling-retry" || follow === "retry" || follow === "cut-tool") {
    server.queue(e.id === "openai-tool-call-stream" ? entry("openai-after-tool-stream") : NEXT[protocolOf(e)]);
  }
  const r = await runRt(run, e, root, configHome, [], "hello");
  const events = parseEvents(r.stdout);
  assert.equal(r.code, e.expect.exit, `${e.id}: exit ${r.code}\n${r.stderr}\n${r.stdout.slice(-2000)}`);

  // The first model turn, as the recording has it (after a retry: as the answer that followed it).
  const first = firstTurn(events);
  const shown = follow === "retry" ? readRecording(NEXT[protocolOf(e)]) : rec;
  assert.equal(first.end.finish_reason, e.expect.finish, `${e.id}: finish reason`);
  assert.equal(first.end.tool_calls, e.expect.toolCalls, `${e.id}: tool calls`);
  if (e.expect.finish !== "error" && shown.finish)
    assert.equal(first.end.stop_reason, shown.finish, `${e.id}: the provider's own word`);
  if (follow === "retry") {
    assert.equal(
      first.events
        .filter((ev) => ev.type === "text")
        .map((ev) => ev.delta)
        .join(""),
      shown.text,
      `${e.id}: the answer after the retry`,
    );
    assert.equal(server.calls.length, 2, `${e.id}: one retry`);
    assert.deepEqual(server.calls[1].body, server.calls[0].body, `${e.id}: the same request again`);
  } else if (follow !== "sampling-retry") {
    assert.equal(
      first.events
        .filter((ev) => ev.type === "text")
        .map((ev) => ev.delta)
        .join(""),
      rec.text,
      `${e.id}: text`,
    );
    assert.equal(
      first.events
        .filter((ev) => ev.type === "reasoning")
        .map((ev) => ev.delta)
        .join(""),
      rec.reasoning,
      `${e.id}: reasoning`,
    );
    if (rec.usage && rec.usage.input !== undefined) {
      // Kept even when the stream then fails (OpenRouter's error chunk carries it).
      assert.deepEqual(
        [first.end.usage.input_tokens, first.end.usage.output_tokens],
        [rec.usage.input, rec.usage.output],
        `${e.id}: usage`,
      );
    }
  }

  // How the turn ended.
  const last = events.at(-1)!;
  if (e.expect.exit === 0) {
    assert.equal(last.type, "turn_complete", e.id);
    assert.equal(last.finish_reason, "stop", e.id);
  } else {
    assert.equal(last.type, "error", e.id);
    assert.equal(last.kind, e.expect.kind, `${e.id}: ${last.message}`);
    const said = (rec.error as { message?: string } | undefined)?.message;
    if (said)
      assert.ok(
        last.message.includes(`"${said.replace(/\s*\n\s*/g, " ")}`.slice(0, 80)),
        `${e.id}: the provider's words, quoted: ${last.message}`,
      );
    if (e.expect.kind === "refusal" && rec.stopDetail) assert.ok(last.message.includes(rec.stopDetail), e.id);
    if (e.expect.kind === "length") assert.equal(last.text, rec.text, `${e.id}: the partial answer`);
    // Not retried: an error that is not transient is reported after one request.
    assert.equal(server.calls.length, 1, `${e.id}: requests`);
  }

  // The tool calls rt made of it.
  const starts = events.filter((ev) => ev.type === "tool_start");
  if (follow === "cut-tool") {
    // The call cut at the output limit is not run: its result says so, and the turn goes on.
    const ends = events.filter((ev) => ev.type === "tool_end");
    assert.equal(ends.length, rec.toolCalls.length, e.id);
    for (const end of ends) assert.equal(end.success, false, `${e.id}: a cut call does not succeed`);
    assert.equal(server.calls.length, 2, e.id);
    const body = server.calls[1].body;
    const results = JSON.stringify(body.messages.at(-1));
    for (const c of rec.toolCalls) assert.ok(c.id && results.includes(c.id), `${e.id}: a result for ${c.id}`);
    assert.match(results, /cut off at the output limit/, e.id);
  } else if (follow === "tools") {
    assert.deepEqual(
      starts.map((s) => s.name),
      rec.toolCalls.map((c) => c.name),
      e.id,
    );
    for (const [i, c] of rec.toolCalls.entries()) {
      if (c.id) assert.equal(starts[i].id, c.id, e.id);
      assert.deepEqual(starts[i].args, JSON.parse(c.args || "{}"), e.id);
    }
  } else assert.equal(starts.length, 0, e.id);

  // Every request's headers; every model request's body against its schema.
  for (const req of server.requests) checkHeaders(e, req);
  for (const [i, req] of server.calls.entries()) checkRequest(e, req.body, `${e.id}: request ${i + 1}`);

  if (follow === "tools") {
    assert.equal(server.calls.length, 2, e.id);
    checkSentBack(e, rec, server.calls[1].body, true);
  }
  if (follow === "pause") {
    // Anthropic's documented continuation: the paused content as the last (assistant) message, unchanged.
    assert.equal(server.calls.length, 2, e.id);
    const body = server.calls[1].body;
    const last = body.messages.at(-1);
    assert.equal(last.role, "assistant", e.id);
    const expected = rec.blocks!.filter((b) => b.type !== "text" || String(b.text).trim() !== "");
    assert.deepEqual(last.content, expected, `${e.id}: the paused content goes back as it came`);
    assert.deepEqual(body.messages.slice(0, -1), server.calls[0].body.messages, `${e.id}: and nothing else changes`);
    assert.ok(
      events.some((ev) => ev.type === "notice" && /pause_turn/.test(ev.message)),
      `${e.id}: the continuation is said`,
    );
    const second = readRecording(entry(`${e.id}-continued`));
    assert.equal(
      events
        .filter((ev) => ev.type === "text")
        .map((ev) => ev.delta)
        .join(""),
      rec.text + second.text,
      `${e.id}: both parts of the answer`,
    );
  }
  if (follow === "sampling-retry") {
    assert.equal(server.calls.length, 2, e.id);
    assert.equal(server.calls[0].body.temperature, 0.2, `${e.id}: the configured temperature was asked for`);
    assert.equal("temperature" in server.calls[1].body, false, `${e.id}: and dropped once the provider named it`);
  }
  if (follow === "continue") {
    server.reset();
    server.queue(NEXT[protocolOf(e)]);
    const r2 = await runRt(run, e, root, configHome, ["--continue"], "and then?");
    assert.equal(r2.code, 0, `${e.id}: --continue: ${r2.stderr}`);
    assert.equal(server.calls.length, 1, e.id);
    const body = server.calls[0].body;
    checkRequest(e, body, `${e.id}: the continued request`);
    for (const req of server.requests) checkHeaders(e, req);
    const a = checkSentBack(e, rec, body, false);
    if (!e.expect.kind)
      assert.doesNotMatch(JSON.stringify(a), /\[rt: /, `${e.id}: a complete answer goes back unmarked`);
    if (e.expect.kind) {
      // A cut answer goes back marked, so the model knows it did not finish.
      const sent = JSON.stringify(a);
      assert.match(sent, e.expect.kind === "length" ? /cut off at the output limit/ : /declined to answer/, e.id);
    }
  }
}

describe("replay: what a recording means beyond one answer", () => {
  test("OpenRouter's upstream 429, every retry refused: the upstream's words and the provider's name, after the retries", async () => {
    const e = entry("openrouter-upstream-429");
    const root = tempTree({ "a.txt": "alpha\n" });
    const configHome = tempTree({}, "rt-config-");
    fs.mkdirSync(path.join(configHome, "rt"), { recursive: true });
    fs.writeFileSync(
      path.join(configHome, "rt", "config.json"),
      JSON.stringify({ providers: { openrouter: { max_retries: 1 } } }),
    );
    server.queue(e, e);
    const r = await runRt(rtMain, e, root, configHome, [], "hello");
    assert.equal(r.code, 1, r.stderr);
    const last = parseEvents(r.stdout).at(-1)!;
    assert.equal(last.type, "error");
    assert.equal(last.kind, "rate_limit");
    assert.match(last.message, /Provider returned error/);
    assert.match(last.message, /Google/, "the upstream provider is named");
    assert.match(last.message, /temporarily rate-limited upstream\. Please retry shortly/, "the upstream's own words");
    assert.match(last.message, /gave up after 2 attempts/);
    assert.equal(server.calls.length, 2, "retried once (max_retries 1), with backoff");
  });

  test("a turn Anthropic keeps pausing: continued up to the limit, then reported, what arrived kept", async () => {
    const e = entry("anthropic-pause-turn");
    const root = tempTree({ "a.txt": "alpha\n" });
    const configHome = tempTree({}, "rt-config-");
    const limit = 5; // AGENT_PAUSED_TURN_CONTINUATIONS
    for (let i = 0; i <= limit; i++) server.queue(e);
    const r = await runRt(rtMain, e, root, configHome, [], "hello");
    assert.equal(r.code, 1, r.stderr);
    const events = parseEvents(r.stdout);
    const last = events.at(-1)!;
    assert.equal(last.type, "error");
    assert.equal(last.kind, "paused");
    assert.match(last.message, /pause_turn/);
    assert.match(last.message, /continued it 5 times/);
    assert.equal(server.calls.length, limit + 1);
    assert.equal(events.filter((ev) => ev.type === "notice" && /pause_turn/.test(ev.message)).length, limit);
  });
});
