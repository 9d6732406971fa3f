// The load test's correctness conditions at CI size: 8 concurrent HTTP clients,
// 200 mixed read/grep/edit calls, each client editing its own file. Every call
// is answered correctly, each edited file holds exactly what its client wrote,
// and no other file changes. (`npm run bench` runs the 2,000-call version.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { runMcpLoad, markdownSection } from "../../bench/mcp-load.mjs";
import { CLI } from "../helpers.js";

test("8 concurrent MCP clients, 200 mixed calls: all answered, no file corrupted", async () => {
  const r = await runMcpLoad({ calls: 200, clients: 8, cli: CLI });
  assert.deepEqual(r.problems, []);
  assert.equal(r.answered, 200);
  for (const kind of ["read", "grep", "edit"] as const)
    assert.ok(r.byKind[kind].n > 20, `${kind}: ${r.byKind[kind].n} calls`);
  assert.match(markdownSection(r), /Answered: 200 of 200; problems: none/);
});
