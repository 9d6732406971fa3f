#!/usr/bin/env node
// Speed of a validated edit in a warm process: `rt mcp` over stdio,
// driven by the MCP SDK's own client, editing a generated TypeScript file of
// 5,000 (and 1,000) lines again and again. Each call goes through the whole
// pipeline: match, syntax check (tree-sitter, re-parsing incrementally from the
// tree of the version the previous edit wrote), structure check, journal,
// atomic write, line IDs. The first edits warm the process and are not counted.
//
//   node bench/edit-speed.mjs            prints the results as JSON
//   node bench/edit-speed.mjs --rounds 60
//
// `npm run bench` (bench/run.mjs, group `edit-speed`) runs it too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const CLI = path.join(REPO, "dist", "cli.js");
/** The target: a warm validated edit of a 5,000-line TypeScript file. */
export const TARGET_MS = 15;
const WARMUP = 5;

/** A TypeScript file of `n` lines: functions, interfaces, classes (it parses without error). */
export function tsFile(n) {
  const out = [];
  // Whole blocks only (a cut block would be a syntax error), then comment lines up to n.
  for (let i = 0; out.length + 12 <= n; i++) {
    out.push(
      `export interface Shape${i} {`,
      `  id: number;`,
      `  label: string;`,
      `}`,
      `export function area${i}(s: Shape${i}, k: number): number {`,
      `  const base = s.id * ${i} + k;`,
      `  if (base > ${i}) {`,
      `    return base - s.label.length;`,
      `  }`,
      `  return ${i};`,
      `}`,
      ``,
    );
  }
  while (out.length < n) out.push(`// ${out.length + 1}`);
  return out.join("\n") + "\n";
}

/** CPU time (user + system, ms) the process has used so far, from /proc (Linux); null elsewhere. */
function cpuMs(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 (1-based) of the whole line: 12 and 13 after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(client, pid, rel, lines, rounds) {
  const times = [];
  let cpu0 = null;
  const blocks = Math.floor(lines / 12);
  for (let k = 0; k < WARMUP + rounds; k++) {
    // A different function each time, spread over the file; the edit adds nothing broken.
    const i = (k * 37) % blocks;
    const t = performance.now();
    const r = await client.callTool({
      name: "edit",
      arguments: { path: rel, old_string: `  return ${i};\n}`, new_string: `  return ${i} + ${k};\n}` },
    });
    const dt = performance.now() - t;
    if (r.isError) throw new Error(`edit failed: ${JSON.stringify(r.content).slice(0, 400)}`);
    if (k === WARMUP - 1) cpu0 = cpuMs(pid);
    if (k >= WARMUP) times.push(dt);
  }
  const cpu1 = cpuMs(pid);
  times.sort((a, b) => a - b);
  // CPU time per edit of the server process: what the edit costs rt, whatever the machine's load
  // (the wall times include waiting for the CPU and for fsync; 10 ms clock ticks, so averaged).
  const cpuPerEdit = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / rounds : null;
  return {
    lines,
    rounds,
    median: percentile(times, 50),
    p90: percentile(times, 90),
    min: times[0],
    max: times[times.length - 1],
    cpuPerEdit,
  };
}

export async function runEditSpeed({ rounds = 40 } = {}) {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run node scripts/build.mjs first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-edit-speed-"));
  fs.writeFileSync(path.join(dir, "big.ts"), tsFile(5000));
  fs.writeFileSync(path.join(dir, "mid.ts"), tsFile(1000));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--root", dir],
    cwd: dir,
    env: { ...process.env, RT_PROFILE: "dev" },
    stderr: "ignore",
  });
  const client = new Client({ name: "edit-speed", version: "1" });
  await client.connect(transport);
  try {
    const pid = transport.pid;
    const big = await measure(client, pid, "big.ts", 5000, rounds);
    const mid = await measure(client, pid, "mid.ts", 1000, rounds);
    return { big, mid, target: TARGET_MS };
  } finally {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows bench/run.mjs puts in BENCHMARKS.md. */
export function rows(r) {
  const fmt = (m) =>
    `median ${m.median.toFixed(1)} ms, p90 ${m.p90.toFixed(1)} ms${m.cpuPerEdit === null ? "" : `, ${m.cpuPerEdit.toFixed(1)} ms CPU per edit`}`;
  return [
    {
      name: `warm validated \`edit\` of a 5,000-line TypeScript file through \`rt mcp\` (${r.big.rounds} edits)`,
      rt: fmt(r.big),
      pass: r.big.median <= r.target,
      target: `<= ${r.target} ms median`,
    },
    {
      name: `warm validated \`edit\` of a 1,000-line TypeScript file through \`rt mcp\` (${r.mid.rounds} edits)`,
      rt: fmt(r.mid),
      pass: r.mid.median <= r.target,
      target: `<= ${r.target} ms median`,
    },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const i = process.argv.indexOf("--rounds");
  const r = await runEditSpeed({ rounds: i === -1 ? 40 : Number(process.argv[i + 1]) });
  process.stdout.write(JSON.stringify(r, null, 1) + "\n");
}
