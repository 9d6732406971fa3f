// Prompt caching against the scripted Anthropic server, whose cache follows Anthropic's
// documented prefix rule (test/llm-server.ts): where the agent puts its cache_control
// markers on every request of a session with tool calls, a subagent and a compaction, that
// the prefix it repeats is byte-identical from one request to the next, and that the cache
// is then read back. Plus the OpenAI side: prompt_cache_key.
import { test, after, before, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, reply, type LlmServer, type RecordedRequest } from "../llm-server.ts";
import { anthropicProvider, collect, last, makeAgent, ofType } from "./harness.ts";
import { tempTree } from "../helpers.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { costOf } from "../../src/agent/settings.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(() => server.close());
beforeEach(() => server.reset());

type Block = Record<string, unknown> & { type: string; cache_control?: unknown };
type Msg = { role: string; content: Block[] };

/** A request body without its cache_control markers: what must stay byte-identical. */
function unmarked(body: RecordedRequest["body"]): { tools: unknown; system: unknown; messages: Msg[] } {
  const strip = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v ?? null, (k, x) => (k === "cache_control" ? undefined : x)));
  return { tools: strip(body.tools), system: strip(body.system), messages: strip(body.messages) as Msg[] };
}

/** Every marker of a request, as the place it is on. */
function markers(body: RecordedRequest["body"]): string[] {
  const out: string[] = [];
  (body.tools ?? []).forEach((t: Block, i: number) => t.cache_control && out.push(`tool ${i}`));
  if (Array.isArray(body.system))
    body.system.forEach((b: Block, i: number) => b.cache_control && out.push(`system ${i}`));
  (body.messages as Msg[]).forEach((m, i) =>
    m.content.forEach((b, j) => b.cache_control && out.push(`message ${i} block ${j}`)),
  );
  return out;
}

/** Where the markers must be: the last tool, the system prompt, the last block of the newest two user messages. */
function expectedMarkers(body: RecordedRequest["body"]): string[] {
  const out: string[] = [];
  if (body.tools?.length) out.push(`tool ${body.tools.length - 1}`);
  if (body.system !== undefined) out.push("system 0");
  const users = (body.messages as Msg[]).flatMap((m, i) => (m.role === "user" ? [i] : [])).slice(-2);
  for (const i of users) out.push(`message ${i} block ${body.messages[i].content.length - 1}`);
  return out;
}

test("every request of a session with tool calls, a subagent and a compaction carries its markers in place; the prefix repeats byte for byte and is read back", async () => {
  const root = tempTree({ "a.txt": "alpha\n".repeat(50), "src/b.py": "def beta():\n    return 2\n" });
  server.script(
    reply.toolCall("read", { path: "a.txt" }),
    reply.toolCall("grep", { pattern: "beta", path: "src" }),
    reply.text("a.txt says alpha; beta is in src/b.py"),
    // Second prompt: a subagent (its own requests), then the answer.
    reply.toolCall("task", {
      description: "find beta",
      prompt: "Where is beta defined? Report file:line.",
      subagent_type: "Explore",
    }),
    reply.text("src/b.py:1"),
    reply.text("beta is defined at src/b.py:1"),
    // /compact: the summary request.
    reply.text("## Goal\nfind things\n## Decisions\nnone\n## Files touched\na.txt\n## Open work\nnone"),
    // Third prompt, after the compaction.
    reply.toolCall("read", { path: "src/b.py" }),
    reply.text("done"),
  );
  const agent = makeAgent(root, server, { provider: anthropicProvider(server), modelLabel: "anthropic/test-model" });
  assert.equal(last(await collect(agent.run("read a.txt and find beta"))).type, "turn_complete");
  assert.equal(last(await collect(agent.run("ask a subagent where beta is"))).type, "turn_complete");
  const compacted = await collect(agent.compact());
  assert.equal(ofType(compacted, "compact_end")[0]?.summarized, true);
  const final = await collect(agent.run("read src/b.py"));
  assert.equal(last(final).type, "turn_complete");
  agent.close();

  const reqs = server.completions;
  assert.equal(reqs.length, 9);
  const mainSystem = JSON.stringify(unmarked(reqs[0].body).system);
  const isSubagent = (r: RecordedRequest) => r.body.tools && JSON.stringify(unmarked(r.body).system) !== mainSystem;
  const summary = reqs[6];
  assert.equal(summary.body.tools, undefined, "the summary request is the summarizer's prompt");
  assert.deepEqual(markers(summary.body), [], "a one-off summary request asks for no cache writes");
  assert.ok(isSubagent(reqs[4]), "request 5 is the subagent's");

  for (const [i, r] of reqs.entries()) {
    if (r === summary) continue;
    const m = markers(r.body);
    assert.ok(m.length <= 4, `request ${i}: at most 4 markers (${m.length})`);
    assert.deepEqual(
      m,
      expectedMarkers(r.body),
      `request ${i}: markers on the last tool, the system prompt and the last two user messages`,
    );
    for (const place of m) {
      const c = place.startsWith("tool") ? r.body.tools.at(-1).cache_control : undefined;
      if (c) assert.deepEqual(c, { type: "ephemeral" }, "the default time to live (5 minutes) sends no ttl");
    }
  }

  // The main session's requests, in order, within each stretch between compactions: each repeats the one before byte for byte.
  const main = reqs.filter((r) => r !== summary && !isSubagent(r));
  const stretches = [main.slice(0, 5), main.slice(5)];
  assert.deepEqual(
    stretches.map((s) => s.length),
    [5, 2],
  );
  for (const stretch of stretches) {
    for (let i = 1; i < stretch.length; i++) {
      const a = unmarked(stretch[i - 1].body);
      const b = unmarked(stretch[i].body);
      assert.equal(JSON.stringify(b.tools), JSON.stringify(a.tools), "tools byte-identical");
      assert.equal(JSON.stringify(b.system), JSON.stringify(a.system), "system prompt byte-identical");
      assert.equal(
        JSON.stringify(b.messages.slice(0, a.messages.length)),
        JSON.stringify(a.messages),
        "the earlier messages repeat unchanged",
      );
    }
  }
  // Across the compaction the tools and system prompt still repeat: the request after it reads them from the cache.
  assert.equal(JSON.stringify(unmarked(main[5].body).tools), JSON.stringify(unmarked(main[0].body).tools));
  assert.equal(JSON.stringify(unmarked(main[5].body).system), mainSystem);

  // The scripted server's cache (Anthropic's rule) read back what the markers wrote.
  const log = server.cacheLog;
  assert.equal(log.length, 8, "every request but the summary's carried markers");
  const cacheOf = (r: RecordedRequest) => log[reqs.filter((x) => x !== summary).indexOf(r)];
  for (let i = 1; i < 5; i++) {
    const prev = cacheOf(main[i - 1]);
    const cur = cacheOf(main[i]);
    assert.ok(
      cur.read >= prev.read + prev.written,
      `main request ${i + 1} reads the whole prefix the one before wrote (${cur.read} < ${prev.read + prev.written})`,
    );
  }
  const toolsAndSystem = Math.ceil(
    (JSON.stringify(unmarked(main[0].body).tools).length + JSON.stringify(unmarked(main[0].body).system).length) / 4,
  );
  assert.ok(
    cacheOf(main[5]).read >= toolsAndSystem * 0.9,
    "after compaction the tools and system prompt are still read from the cache",
  );
  // The usage the agent counted matches what the server reported, cache reads and writes included.
  const usage = ofType(final, "turn_complete")[0].session_usage;
  const served = log.reduce((s, c) => ({ read: s.read + c.read, written: s.written + c.written }), {
    read: 0,
    written: 0,
  });
  assert.ok(usage.cached_input_tokens > 0 && usage.cached_input_tokens <= served.read);
  assert.ok((usage.cache_write_tokens ?? 0) > 0);
});

test('agent.prompt_cache "1h" sends the ttl on every marker; "off" sends none', async () => {
  const root = tempTree({ "a.txt": "x\n" });
  for (const [choice, expected] of [
    ["1h", { type: "ephemeral", ttl: "1h" }],
    ["off", undefined],
  ] as const) {
    server.reset();
    server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
    const agent = makeAgent(root, server, {
      provider: anthropicProvider(server),
      modelLabel: "anthropic/test-model",
      promptCache: choice,
    });
    await collect(agent.run("read a.txt"));
    agent.close();
    for (const r of server.completions) {
      const found = markers(r.body);
      if (!expected) assert.deepEqual(found, []);
      else {
        assert.equal(found.length, expectedMarkers(r.body).length);
        assert.deepEqual(r.body.tools.at(-1).cache_control, expected);
        assert.deepEqual(r.body.system[0].cache_control, expected);
      }
    }
  }
});

test("a fifth marker is what the API refuses: the scripted server answers 400 as it does", async () => {
  const res = await fetch(`${server.anthropicBaseUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: Array.from({ length: 5 }, (_, i) => ({
            type: "text",
            text: `p${i}`,
            cache_control: { type: "ephemeral" },
          })),
        },
      ],
    }),
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /A maximum of 4 blocks with cache_control/);
});

test("OpenAI's own API gets prompt_cache_key, one per session; other OpenAI-compatible servers do not", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  for (const name of ["openai", "openai-compatible"]) {
    server.reset();
    server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
    const provider = createOpenAICompatibleProvider({
      name,
      baseURL: server.openaiBaseUrl,
      apiKey: "k",
      retry: { maxRetries: 0 },
    });
    const agent = makeAgent(root, server, { provider });
    await collect(agent.run("read a.txt"));
    agent.close();
    const keys = server.completions.map((r) => r.body.prompt_cache_key);
    if (name === "openai") {
      assert.equal(typeof keys[0], "string");
      assert.equal(keys[1], keys[0], "the same key for every request of the session");
    } else assert.deepEqual(keys, [undefined, undefined]);
  }
});

test("cost: cache reads at the cached price, cache writes at the write price (default 1.25 times input)", () => {
  const u = {
    input_tokens: 1_000_000,
    output_tokens: 0,
    cached_input_tokens: 600_000,
    cache_write_tokens: 300_000,
    reasoning_tokens: 0,
    requests: 1,
  };
  // 100k fresh at 3, 600k read at 0.3, 300k written at 3.75.
  assert.equal(costOf(u, { input: 3, output: 15, cached_input: 0.3 }).toFixed(4), (0.3 + 0.18 + 1.125).toFixed(4));
  assert.equal(
    costOf(u, { input: 3, output: 15, cached_input: 0.3, cache_write: 6 }).toFixed(4),
    (0.3 + 0.18 + 1.8).toFixed(4),
  );
});

test("cache reads and writes are shown: the status line, rt sessions, the usage line of rt run", async () => {
  const { statusLine } = await import("../../src/ui/tui/status.ts");
  const { formatSessionList } = await import("../../src/ui/sessionList.ts");
  const { usageLine } = await import("../../src/ui/render.ts");
  const { bare } = await import("../../src/ui/tui/palette.ts");
  const usage = {
    input_tokens: 12_000,
    output_tokens: 800,
    cached_input_tokens: 9_100,
    cache_write_tokens: 1_200,
    reasoning_tokens: 0,
    requests: 3,
  };
  const line = statusLine(
    {
      model: "anthropic/x",
      approval: "ask",
      usage,
      cost: undefined,
      contextTokens: undefined,
      contextWindow: undefined,
      operation: undefined,
      now: 0,
    },
    bare,
    160,
  );
  assert.match(line, /12k in \(9\.1k cached, 1\.2k written\) \/ 800 out/);
  const list = formatSessionList([
    {
      id: "s1",
      file: "f",
      created: "2026-01-01T00:00:00Z",
      updated: "2026-01-01T00:00:00Z",
      model: "anthropic/x",
      prompts: 1,
      firstPrompt: "hi",
      usage,
    },
  ]);
  assert.match(list, /12,800 tokens \(9,100 cached, 1,200 written\)/);
  assert.match(usageLine(usage, usage), /tokens: 12,000 in \(9,100 cached, 1,200 written\), 800 out/);
  // Without cache use nothing is added.
  assert.doesNotMatch(
    usageLine({ ...usage, cached_input_tokens: 0, cache_write_tokens: undefined }, usage).split(" · ")[0],
    /cached/,
  );
});

test("the scripted server's prompt cache follows Anthropic's rule: byte-identical prefix up to a marker, a 20-block lookback, a minimum size", async () => {
  const { PromptCacheModel } = await import("../llm-server.ts");
  const cc = { type: "ephemeral" };
  const big = "x".repeat(5000); // about 1,250 tokens: above the 1,024-token minimum
  const blocks = (n: number, mark: number[], change?: number) =>
    Array.from({ length: n }, (_, i) => ({
      type: "text",
      text: i === 0 ? big : `b${i}${i === change ? "!" : ""}`,
      ...(mark.includes(i) ? { cache_control: cc } : {}),
    }));
  const body = (content: unknown[]) => ({ system: "s", messages: [{ role: "user", content }] });
  const m = new PromptCacheModel();
  const w = m.account(body(blocks(3, [2])));
  assert.equal(w.read, 0);
  assert.ok(w.written > 1024);
  // The same prefix and more: read back up to the old marker (found within 20 blocks of the new one).
  const r = m.account(body(blocks(10, [9])));
  assert.equal(r.read, w.written);
  // One byte changed before the old marker: nothing read.
  assert.equal(m.account(body(blocks(10, [9], 1))).read, 0);
  // The old marker more than 20 blocks back from every marker: not found.
  const far = new PromptCacheModel();
  far.account(body(blocks(3, [2])));
  assert.equal(far.account(body(blocks(30, [29]))).read, 0);
  // Below the minimum nothing is cached.
  const small = new PromptCacheModel();
  small.account({
    system: "s",
    messages: [{ role: "user", content: [{ type: "text", text: "tiny", cache_control: cc }] }],
  });
  assert.equal(
    small.account({
      system: "s",
      messages: [{ role: "user", content: [{ type: "text", text: "tiny", cache_control: cc }] }],
    }).read,
    0,
  );
});
