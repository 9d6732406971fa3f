// The scripted server (test/llm-server.ts) against the recordings: what it
// streams must be something the real providers stream. For each protocol, every
// event type, every field of an event, every content-block and delta type, and
// every finish word the scripted server sends must occur in the recorded
// responses of test/fixtures/replay/ (the converse is not required: the
// recordings hold more than rt needs scripted).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, type LlmServer, type LlmReply } from "../llm-server.ts";
import { loadManifest, recordingText, type ManifestEntry } from "./replayServer.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(() => server.close());

/** Every object path (a.b.c) in a JSON value, arrays flattened to []. */
function paths(v: unknown, prefix = "", out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) paths(x, `${prefix}[]`, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      paths(x, p, out);
    }
  }
  return out;
}

function sseData(text: string): Array<{ event?: string; data: any }> {
  const out: Array<{ event?: string; data: any }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length && data.join("\n") !== "[DONE]") out.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return out;
}

function recorded(filter: (e: ManifestEntry) => boolean): any[] {
  const out: any[] = [];
  for (const e of loadManifest().filter((x) => x.framing !== "json" && filter(x))) {
    const text = recordingText(e);
    if (e.framing === "sse") out.push(...sseData(text).map((x) => x.data));
    else
      out.push(
        ...text
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l)),
      );
  }
  return out;
}

async function scripted(path: string, body: object, r: LlmReply): Promise<string> {
  server.reset();
  server.script(r);
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.text();
}

/** Each event's (type-qualified) field paths must be among those recorded for the same type. */
function assertSubset(got: any[], real: any[], typeOf: (ev: any) => string, where: string) {
  const known = new Map<string, Set<string>>();
  for (const ev of real) {
    const t = typeOf(ev);
    const s = known.get(t) ?? new Set<string>();
    for (const p of paths(ev)) s.add(p);
    known.set(t, s);
  }
  for (const ev of got) {
    const t = typeOf(ev);
    assert.ok(known.has(t), `${where}: event type ${t} never occurs in the recordings`);
    for (const p of paths(ev))
      assert.ok(known.get(t)!.has(p), `${where}: ${t} field ${p} never occurs in the recordings`);
  }
}

const REPLIES: LlmReply[] = [
  { text: "Hello there" },
  { reasoning: "Let me think", text: "Done." },
  { text: "Reading.", toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] },
  { text: "cut", finish: "length" },
];

describe("the scripted server speaks like the recordings", () => {
  test("chat completions", async () => {
    const real = recorded((e) => e.provider !== "anthropic" && e.provider !== "ollama");
    const chunkType = (ev: any) => (ev.choices?.length ? "choice" : ev.usage ? "usage" : "other");
    const finishes = new Set(real.flatMap((ev) => (ev.choices ?? []).map((c: any) => c.finish_reason)).filter(Boolean));
    for (const r of REPLIES) {
      const got = sseData(
        await scripted(
          "/v1/chat/completions",
          { model: "m", stream: true, stream_options: { include_usage: true }, messages: [] },
          r,
        ),
      ).map((x) => x.data);
      assertSubset(got, real, chunkType, JSON.stringify(r));
      for (const ev of got)
        for (const c of ev.choices ?? [])
          if (c.finish_reason) assert.ok(finishes.has(c.finish_reason), c.finish_reason);
    }
  });

  test("Anthropic Messages", async () => {
    const real = recorded((e) => e.provider === "anthropic");
    const typeOf = (ev: any) =>
      `${ev.type}${ev.content_block ? `/${ev.content_block.type}` : ""}${ev.delta?.type ? `/${ev.delta.type}` : ""}`;
    for (const r of [...REPLIES, { redactedThinking: ["x"], text: "ok" }, { reasoning: "", text: "ok" }]) {
      const raw = await scripted(
        "/v1/messages",
        { model: "m", stream: true, max_tokens: 10, messages: [] },
        r.finish === "length" ? { ...r, finish: "max_tokens" } : r,
      );
      const events = sseData(raw);
      for (const { event, data } of events) assert.equal(event, data.type, "each event is named by its type");
      assertSubset(
        events.map((x) => x.data),
        real,
        typeOf,
        JSON.stringify(r),
      );
    }
  });

  test("Ollama /api/chat", async () => {
    const real = recorded((e) => e.provider === "ollama");
    const typeOf = (ev: any) => (ev.done ? "done" : ev.message?.tool_calls ? "tool_calls" : "content");
    for (const r of [{ text: "Hello there" }, { toolCalls: [{ name: "get_weather", arguments: { city: "Tokyo" } }] }]) {
      const raw = await scripted("/api/chat", { model: "m", messages: [] }, r);
      const got = raw
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l));
      // Ollama's docs print a shorter done line than recent servers send (done_reason, index): those fields are allowed.
      const allowed = [
        ...real,
        { done: true, done_reason: "stop", message: { role: "assistant", content: "" } },
        {
          message: {
            role: "assistant",
            content: "",
            tool_calls: [{ function: { index: 0, name: "x", arguments: {} } }],
          },
          done: false,
        },
      ];
      assertSubset(got, allowed, typeOf, JSON.stringify(r));
    }
  });

  test("OpenAI Responses", async () => {
    const real = recorded((e) => e.provider === "openai-responses");
    const typeOf = (ev: any) => `${ev.type}${ev.item ? `/${ev.item.type}` : ""}`;
    for (const r of REPLIES.slice(0, 3)) {
      const raw = await scripted("/v1/responses", { model: "m", stream: true, input: [] }, r);
      const events = sseData(raw);
      for (const { event, data } of events) assert.equal(event, data.type, "each event is named by its type");
      assert.deepEqual(
        events.map((x) => x.data.sequence_number),
        events.map((_, i) => i),
        "sequence numbers count from 0",
      );
      assert.equal(events.at(-1)?.data.type, "response.completed");
      // The recordings' reasoning items carry encrypted content; the scripted one only a summary.
      assertSubset(
        events.map((x) => x.data),
        real,
        typeOf,
        JSON.stringify(r),
      );
    }
  });

  test("OpenAI Responses through the official client: text, calls, usage; a custom tool gets a custom_tool_call", async () => {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: "k" });
    server.reset();
    server.script(
      { text: "Reading.", toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ id: "c2", name: "apply_patch", arguments: "*** Begin Patch\n*** End Patch" }] },
    );
    const tools: any[] = [
      { type: "function", name: "read", parameters: { type: "object" }, strict: false },
      { type: "custom", name: "apply_patch", description: "patch" },
    ];
    const first = await client.responses.create({ model: "m", input: "hi", tools, stream: true });
    const types: string[] = [];
    let done: any;
    for await (const ev of first) {
      types.push(ev.type);
      if (ev.type === "response.completed") done = ev.response;
    }
    assert.equal(types[0], "response.created");
    assert.deepEqual(
      done.output.map((o: any) => o.type),
      ["message", "function_call"],
    );
    assert.equal(done.output[1].arguments, '{"path":"a.txt"}');
    assert.equal(done.output[1].call_id, "c1");
    assert.ok(done.usage.input_tokens >= 0 && done.usage.output_tokens > 0);
    const second = await client.responses.create({ model: "m", input: "go", tools });
    assert.deepEqual(second.output[0], {
      ...second.output[0],
      type: "custom_tool_call",
      call_id: "c2",
      name: "apply_patch",
      input: "*** Begin Patch\n*** End Patch",
    });
    server.script({ text: "later", delayMs: 300 });
    await client.responses.create({ model: "m", input: "wait" });
    const [a, b, c] = server.completions;
    assert.ok(c.answeredAt! - c.receivedAt >= 290, "delayMs holds the answer back");
    assert.ok(a.protocol === "responses" && b.protocol === "responses");
    assert.ok(a.answeredAt! >= a.receivedAt && b.receivedAt >= a.answeredAt!, "request and answer times in order");
  });
});
