// The load test's correctness conditions at CI size: 8 concurrent HTTP clients,
// 100 mixed read/grep/edit calls (200 in the soak run), each client editing its own file. Every call
// is answered correctly, each edited file holds exactly what its client wrote,
// and no other file changes. (`npm run bench` runs the 2,000-call version.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { runMcpLoad, markdownSection } from "../../bench/mcp-load.mjs";
import { CLI, soak } from "../helpers.js";

// 100 calls in `npm test`, 200 in the soak run.
const CALLS = soak(100, 200);

test("8 concurrent MCP clients, a hundred or more mixed calls: all answered, no file corrupted", async () => {
  const r = await runMcpLoad({ calls: CALLS, clients: 8, cli: CLI });
  assert.deepEqual(r.problems, []);
  assert.equal(r.answered, CALLS);
  for (const kind of ["read", "grep", "edit"] as const)
    assert.ok(r.byKind[kind].n > 20, `${kind}: ${r.byKind[kind].n} calls`);
  assert.match(markdownSection(r), new RegExp(`Answered: ${CALLS} of ${CALLS}; problems: none`));
});
