#!/usr/bin/env node
// The first `edit` of an `rt mcp` process against the second (issue target: first at most 1.5x
// the second). A client (the MCP SDK's own, over stdio) starts `rt mcp`, initializes, lists the
// tools, waits the way a client waits for its model (WAIT_MS: a long-running process has idle
// time before its first call), then edits one TypeScript file and another: each edit's round
// trip is timed, in wall-clock time and in the CPU time the main thread of `rt mcp` spent on it
// (/proc/PID/schedstat on Linux: on a loaded machine the wall clock measures the load too).
// Repeated ROUNDS times with a fresh process each; the medians are reported.
//
//   node bench/mcp-first-edit.mjs [--rounds N] [--cli dist/cli.js] [--json]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const ROUNDS = Number(opt("rounds", "5"));
const CLI = path.resolve(opt("cli", path.join(REPO, "dist", "cli.js")));
/** Idle time between the tool list and the first call, as while a model thinks. */
const WAIT_MS = Number(process.env.RT_BENCH_WAIT_MS ?? 1500);

/**
 * The CPU time (ms) the main thread of process `pid` has run so far, where the JavaScript runs:
 * /proc/PID/schedstat's first field, in nanoseconds (Linux); undefined elsewhere.
 */
function cpuMs(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function source(tag) {
  const lines = [`export function ${tag}(n: number): number {`];
  for (let i = 0; i < 200; i++) lines.push(`  const v${i} = n * ${i} + ${i % 7}; // ${tag} ${i}`);
  lines.push("  return v0;", "}", "");
  return lines.join("\n");
}

async function round() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-first-edit-"));
  fs.writeFileSync(path.join(root, "a.ts"), source("alpha"));
  fs.writeFileSync(path.join(root, "b.ts"), source("beta"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    cwd: root,
    env: { ...process.env, RT_ROOT: root },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  await client.listTools();
  await new Promise((r) => setTimeout(r, WAIT_MS));
  const times = [];
  const cpu = [];
  for (const [file, tag] of [
    ["a.ts", "alpha"],
    ["b.ts", "beta"],
  ]) {
    const c0 = cpuMs(transport.pid);
    const t0 = performance.now();
    const res = await client.callTool({
      name: "edit",
      arguments: {
        path: file,
        old_string: `const v42 = n * 42 + 0; // ${tag} 42`,
        new_string: `const v42 = n * 43 + 0; // ${tag} 42`,
      },
    });
    times.push(performance.now() - t0);
    const c1 = cpuMs(transport.pid);
    cpu.push(c0 !== undefined && c1 !== undefined ? c1 - c0 : Number.NaN);
    if (res.isError) throw new Error(`edit of ${file} failed: ${JSON.stringify(res.content)}`);
  }
  await client.close();
  fs.rmSync(root, { recursive: true, force: true });
  return { times, cpu };
}

export async function firstEdit(rounds = ROUNDS) {
  const first = [];
  const second = [];
  const firstCpu = [];
  const secondCpu = [];
  for (let i = 0; i < rounds; i++) {
    const { times, cpu } = await round();
    first.push(times[0]);
    second.push(times[1]);
    firstCpu.push(cpu[0]);
    secondCpu.push(cpu[1]);
  }
  return {
    rounds,
    firstCpuMs: median(firstCpu),
    secondCpuMs: median(secondCpu),
    cpuRatio: median(firstCpu) / median(secondCpu),
    firstCpu,
    secondCpu,
    firstMs: median(first),
    secondMs: median(second),
    ratio: median(first) / median(second),
    first,
    second,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await firstEdit();
  if (args.includes("--json")) console.log(JSON.stringify(r));
  else
    console.log(
      `rt mcp, ${r.rounds} processes: first edit ${r.firstMs.toFixed(1)} ms, second ${r.secondMs.toFixed(1)} ms (median), first/second ${r.ratio.toFixed(2)}x; CPU time of rt mcp's main thread: first ${r.firstCpuMs.toFixed(1)} ms, second ${r.secondCpuMs.toFixed(1)} ms, ${r.cpuRatio.toFixed(2)}x`,
    );
}
