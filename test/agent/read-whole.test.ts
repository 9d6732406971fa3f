// Reads the model sees whole: files of 500, 2,000 and 20,000 lines read through the agent
// (the real loop, the real read tool, the scripted model server). Whatever the model was
// given of a file is contiguous from the first line shown, with no hole, and when the file
// did not fit, the last line names the next line to read; following it continues exactly
// there. Command output, which cannot page, is still cut head and tail.
import { test, after, before, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, reply, type LlmServer, type RecordedRequest } from "../llm-server.ts";
import { collect, last, makeAgent } from "./harness.ts";
import { tempTree } from "../helpers.ts";
import { AGENT_PAGED_OUTPUT_MAX_CHARS, AGENT_TOOL_OUTPUT_MAX_CHARS } from "../../src/base/limits.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(() => server.close());
beforeEach(() => server.reset());

/** A seeded generator (mulberry32): the same files on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` lines of source-like text averaging 25 bytes (with the newline), each naming its number. */
function sourceFile(n: number, seed: number): string {
  const r = random(seed);
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    const tag = `L${i}`;
    const pad = Math.max(0, Math.round(r() * 36) + 2 - tag.length); // 2..38 more: about 24 characters a line
    lines.push(`${" ".repeat(Math.round(r() * 4))}${tag}${"x".repeat(pad)}`.slice(0, 60));
  }
  return `${lines.join("\n")}\n`;
}

/** The last tool result the request carried (OpenAI protocol: a tool message). */
function lastToolResult(r: RecordedRequest): string {
  const tools = (r.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool");
  return tools[tools.length - 1].content;
}

/** The numbered lines ("   12: text") of a read's output, in order, and its continuation hint. */
function shown(output: string): { numbers: number[]; texts: string[]; next?: number; rest: string[] } {
  const numbers: number[] = [];
  const texts: string[] = [];
  const rest: string[] = [];
  let next: number | undefined;
  for (const line of output.split("\n")) {
    const m = /^ *(\d+): (.*)$/.exec(line);
    if (m) {
      numbers.push(Number(m[1]));
      texts.push(m[2]);
      continue;
    }
    const hint = /use offset=(\d+) to continue/.exec(line);
    if (hint) next = Number(hint[1]);
    else if (line.trim()) rest.push(line);
  }
  return { numbers, texts, ...(next !== undefined ? { next } : {}), rest };
}

for (const [lines, seed] of [
  [500, 1],
  [2_000, 2],
  [20_000, 3],
] as const) {
  test(`a ${lines.toLocaleString("en-US")}-line file: every line the model was given is contiguous, and the hint names the next line`, async () => {
    const text = sourceFile(lines, seed);
    const fileLines = text.split("\n").slice(0, -1);
    const root = tempTree({ "src/big.ts": text });
    // The model reads, then follows the hint once (when there is one), then answers.
    server.script(
      reply.toolCall("read", { path: "src/big.ts" }),
      (r) => {
        const next = shown(lastToolResult(r)).next;
        return next ? reply.toolCall("read", { path: "src/big.ts", offset: next }) : reply.text("read it all");
      },
      reply.text("done"),
    );
    const agent = makeAgent(root, server);
    const events = await collect(agent.run("read src/big.ts"));
    assert.equal(last(events).type, "turn_complete");
    agent.close();

    const first = lastToolResult(server.completions[1]);
    const a = shown(first);
    assert.ok(first.length <= AGENT_PAGED_OUTPUT_MAX_CHARS, `within the budget (${first.length})`);
    assert.equal(a.numbers[0], 1);
    a.numbers.forEach((n, i) => assert.equal(n, i + 1, `line ${i + 1} given, no hole`));
    a.texts.forEach((t, i) => assert.equal(t, fileLines[i], `line ${i + 1} given unchanged`));
    assert.deepEqual(a.rest, [], "nothing but lines and the hint: no cut marker");
    const lastShown = a.numbers[a.numbers.length - 1];
    if (lastShown < lines) assert.equal(a.next, lastShown + 1, "the hint names the line after the last one shown");
    else assert.equal(a.next, undefined);
    if (lines === 2_000) {
      assert.equal(Buffer.byteLength(text) <= 50 * 1024, true, "the 2,000-line file is an ordinary 50 KB source file");
      assert.equal(lastShown, 2_000, "a 2,000-line 50 KB file arrives whole");
    }
    if (lines === 500) assert.equal(lastShown, 500);
    if (a.next) {
      const b = shown(lastToolResult(server.completions[2]));
      assert.equal(b.numbers[0], a.next, "the next read starts where the hint said");
      b.numbers.forEach((n, i) => assert.equal(n, a.next! + i));
      b.texts.forEach((t, i) => assert.equal(t, fileLines[a.next! - 1 + i]));
    }
  });
}

test("a command's output, which cannot page, is still cut head and tail at the general cap", async () => {
  const root = tempTree({ "x.txt": "" });
  server.script(reply.toolCall("bash", { command: "seq 1 20000" }), reply.text("ok"));
  const agent = makeAgent(root, server);
  await collect(agent.run("count"));
  agent.close();
  const out = lastToolResult(server.completions[1]);
  assert.ok(out.length <= AGENT_TOOL_OUTPUT_MAX_CHARS + 200, `${out.length}`);
  assert.match(out, /characters cut here/);
  assert.match(out, /\n20000\n/, "the tail is kept");
});
