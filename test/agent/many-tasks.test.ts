// More task calls in one answer than an AbortSignal's default listener limit
// (ten): every subagent waits on, and runs under, the turn's signal, and none
// of that may print MaxListenersExceededWarning.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, reply, type LlmServer, type RecordedRequest } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { makeAgent, collect, last } from "./harness.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});

const systemOf = (r: RecordedRequest): string =>
  String((r.body.messages ?? []).find((m: { role: string }) => m.role === "system")?.content ?? "");

test("twelve task calls in one answer run without a MaxListenersExceededWarning", async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  try {
    const n = 12;
    let parentCalls = 0;
    for (let i = 0; i < n + 2; i++) {
      server.script((r) => {
        if (systemOf(r).startsWith("You are Explore")) return { ...reply.text("found it"), chunkDelayMs: 50 };
        if (parentCalls++ === 0) {
          return {
            toolCalls: Array.from({ length: n }, (_, k) => ({
              id: `call_${k}`,
              name: "task",
              arguments: { description: `look ${k}`, prompt: `Look for thing ${k}.`, subagent_type: "Explore" },
            })),
          };
        }
        return reply.text("all found");
      });
    }
    const agent = makeAgent(tempTree({ "a.txt": "a\n" }), server, { approval: "auto" });
    const events = await collect(agent.run("look for twelve things", { signal: new AbortController().signal }));
    assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      warnings.filter((w) => /MaxListeners/.test(w)),
      [],
    );
  } finally {
    process.off("warning", onWarning);
  }
});
