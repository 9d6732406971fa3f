#!/usr/bin/env node
// Prompt caching over a scripted 10-request Anthropic session (target: at least 80% of the
// input tokens of requests 2-10 read from the cache). rt's real agent loop and Anthropic
// provider talk to the scripted model server (test/llm-server.ts), whose prompt cache follows
// Anthropic's documented prefix rule and reports cache_read_input_tokens and
// cache_creation_input_tokens from the cache_control markers it receives. The model reads,
// greps, edits and runs commands on a copy of a few of rt's own source files, then answers.
// Also reports the tool definitions' bytes of the default request, measured from it.
//
//   node bench/prompt-cache.mjs [--json]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

register();
const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const load = (rel) => import(pathToFileURL(path.join(REPO, rel)).href);

export async function runPromptCache() {
  const { startLlmServer, reply } = await load("test/llm-server.ts");
  const { createWorkspace } = await load("src/workspace/workspace.ts");
  const { agentWorkspace } = await load("src/agent/rtOnPath.ts");
  const { Agent } = await load("src/agent/loop.ts");
  const { createAnthropicProvider } = await load("src/agent/providers/anthropic.ts");

  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-cache-bench-"));
  const files = ["src/agent/turn.ts", "src/agent/compaction.ts", "src/tools/read.ts"];
  for (const f of files) {
    fs.mkdirSync(path.join(root, path.dirname(f)), { recursive: true });
    fs.copyFileSync(path.join(REPO, f), path.join(root, f));
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "rt-cache-bench-home-"));
  const server = await startLlmServer();
  server.script(
    reply.toolCall("grep", { pattern: "compactContext", path: "src" }),
    reply.toolCall("read", { path: "src/agent/compaction.ts" }),
    reply.toolCall("read", { path: "src/agent/turn.ts", offset: 1, limit: 120 }),
    reply.toolCall("find", { pattern: "**/*.ts" }),
    reply.toolCall("edit", {
      path: "src/agent/compaction.ts",
      old_string: "Compacts before a model request",
      new_string: "Compacts before each model request",
    }),
    reply.toolCall("bash", { command: "grep -c export src/agent/compaction.ts" }),
    reply.toolCall("read", { path: "src/tools/read.ts", offset: 100, limit: 60 }),
    reply.toolCall("ls", { path: "src" }),
    reply.toolCall("grep", { pattern: "export function", path: "src/agent" }),
    reply.text("The comment now says each model request; compaction.ts has its exports counted above."),
  );
  const ws = agentWorkspace(
    createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined, XDG_CONFIG_HOME: home, HOME: home } }),
  );
  const agent = new Agent({
    workspace: ws,
    provider: createAnthropicProvider({ baseURL: server.anthropicBaseUrl, apiKey: "bench", retry: { maxRetries: 0 } }),
    model: "claude-bench",
    modelLabel: "anthropic/claude-bench",
    protocol: "tools",
    approval: "auto",
    contextWindow: 200_000,
  });
  for await (const _ev of agent.run(
    "Find where the context is compacted, read it, fix the comment, and check the file.",
  ))
    void _ev;
  agent.close();
  const log = server.cacheLog;
  const first = server.completions[0].body;
  const toolBytes = first.tools.reduce((n, { cache_control: _c, ...t }) => n + Buffer.byteLength(JSON.stringify(t)), 0);
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
  const later = log.slice(1);
  const input = later.reduce((n, c) => n + c.read + c.written + c.input, 0);
  const read = later.reduce((n, c) => n + c.read, 0);
  return {
    requests: log.length,
    perRequest: log.map((c) => ({ read: c.read, written: c.written, uncached: c.input, markers: c.breakpoints })),
    laterInputTokens: input,
    laterCacheReadTokens: read,
    laterCacheReadShare: input ? read / input : 0,
    tools: first.tools.length,
    toolBytes,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runPromptCache();
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 1));
  else {
    console.log(
      `Anthropic, ${r.requests} requests: requests 2-${r.requests} read ${(100 * r.laterCacheReadShare).toFixed(1)}% of their input tokens from the cache (${r.laterCacheReadTokens} of ${r.laterInputTokens})`,
    );
    for (const [i, c] of r.perRequest.entries())
      console.log(
        `  request ${i + 1}: read ${c.read}, written ${c.written}, uncached ${c.uncached} (${c.markers} markers)`,
      );
    console.log(`default request: ${r.tools} tools, ${r.toolBytes} bytes of tool definitions`);
  }
}
