#!/usr/bin/env node
// Load test of `rt mcp --http`: N concurrent MCP clients (the SDK's
// own client over Streamable HTTP) issue mixed read / grep / edit calls against
// one workspace, each client editing its own file. Every answer is checked
// against what the caller knows the workspace holds; at the end every edited
// file must equal the client's model of it and every other file must be
// untouched. Reports latency percentiles per kind of call.
//
//   node bench/mcp-load.mjs                       2,000 calls, 8 clients; prints the results
//   node bench/mcp-load.mjs --write               ... and puts them in BENCHMARKS.md (its own section)
//   node bench/mcp-load.mjs --calls 200 --clients 4
//
// `npm run bench` (bench/run.mjs) runs it too. test/mcp/load.test.ts runs a
// small version (200 calls) so CI checks the same correctness conditions.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
export const DEFAULT_CLI = path.join(REPO, "dist", "cli.js");

/** Files everyone reads and greps (never edited), and lines per file. */
const SHARED_FILES = 40;
const SHARED_LINES = 300;
/** Lines each client's own file starts with. */
const OWN_LINES = 60;
/** Share of each kind of call (the rest are edits). */
const READ_SHARE = 0.4;
const GREP_SHARE = 0.3;

/** A small deterministic PRNG (mulberry32), so every run issues the same calls. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sharedLine(f, i) {
  return i % 25 === 0
    ? `  // marker_${f % 4}: checkpoint ${i}`
    : `  const value_${f}_${i} = compute(${i}, "${f}-${i}");`;
}

function sharedText(f) {
  const lines = [`export function module${f}(compute) {`];
  for (let i = 2; i < SHARED_LINES; i++) lines.push(sharedLine(f, i));
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

const ownLine = (c, k, v) => `export const c${c}_v${k} = ${v};`;

/** A fresh workspace: shared files, one file per client, and what grep must find. */
function makeWorkspace(clients) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rt-mcp-load-")));
  const shared = [];
  for (let f = 0; f < SHARED_FILES; f++) {
    const rel = `src/mod${String(f).padStart(2, "0")}.ts`;
    fs.mkdirSync(path.join(root, "src"), { recursive: true });
    const text = sharedText(f);
    fs.writeFileSync(path.join(root, rel), text);
    shared.push({ rel, lines: text.split("\n").slice(0, -1) });
  }
  // marker_K appears on lines i % 25 === 0 of files with f % 4 === K.
  const markerCounts = [0, 1, 2, 3].map((k) =>
    shared
      .filter((_, f) => f % 4 === k)
      .reduce((n, s) => n + s.lines.filter((l) => l.includes(`marker_${k}:`)).length, 0),
  );
  const own = [];
  for (let c = 0; c < clients; c++) {
    const rel = `own/client${c}.ts`;
    fs.mkdirSync(path.join(root, "own"), { recursive: true });
    const lines = Array.from({ length: OWN_LINES }, (_, k) => ownLine(c, k, 0));
    fs.writeFileSync(path.join(root, rel), `${lines.join("\n")}\n`);
    own.push({ rel, lines });
  }
  return { root, shared, own, markerCounts };
}

function hashShared(root, shared) {
  const h = crypto.createHash("sha256");
  for (const s of shared) h.update(fs.readFileSync(path.join(root, s.rel)));
  return h.digest("hex");
}

/**
 * Starts `rt mcp --http --port 0` and resolves with its URL, once it listens, and
 * the bearer token it printed (every request sends it). Its token file goes to
 * a temporary XDG_RUNTIME_DIR, removed with the server.
 */
export function startServer(cli, root) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("RT_")) delete env[k];
  env.XDG_RUNTIME_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "rt-load-runtime-"));
  const child = spawn(process.execPath, [cli, "--root", root, "mcp", "--http", "--port", "0"], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rt mcp --http did not start: ${stderr}`)), 30_000);
    child.stderr.on("data", (c) => {
      stderr += c;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        const token = /bearer token: (\S+)/.exec(stderr)?.[1];
        const stop = () => {
          child.kill("SIGTERM");
          return exited.finally(() => fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true }));
        };
        resolve({ url: m[1], token, stderr: () => stderr, stop });
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`rt mcp --http exited (${code}): ${stderr}`));
    });
  });
}

const textOf = (r) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** The expected `read` output for lines [offset, offset + limit) of `lines`. */
function numbered(lines, offset, limit) {
  const width = Math.max(4, String(lines.length).length);
  return lines
    .slice(offset - 1, offset - 1 + limit)
    .map((l, i) => `${String(offset + i).padStart(width)}: ${l}`)
    .join("\n");
}

/** One client's calls, one at a time; returns its latencies and failures. */
async function runClient(c, url, token, ws, calls, seed) {
  const client = new Client({ name: `load-${c}`, version: "1.0.0" });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  const rand = rng(seed);
  const pick = (n) => Math.floor(rand() * n);
  const own = ws.own[c];
  const lat = { read: [], grep: [], edit: [] };
  const failures = [];
  let next = 1;
  const timedCall = async (kind, name, args, check) => {
    const t0 = performance.now();
    let result;
    try {
      result = await client.callTool({ name, arguments: args });
    } catch (e) {
      failures.push(`${name} ${JSON.stringify(args).slice(0, 120)}: protocol error: ${e.message}`);
      return;
    }
    lat[kind].push(performance.now() - t0);
    const text = textOf(result);
    const problem = result.isError ? `tool error: ${text.slice(0, 300)}` : check(text);
    if (problem) failures.push(`${name} ${JSON.stringify(args).slice(0, 120)}: ${problem}`);
  };
  for (let i = 0; i < calls; i++) {
    const r = rand();
    if (r < READ_SHARE) {
      // Reads of shared files, and now and then of the client's own file (as it is now).
      const mine = pick(5) === 0;
      const lines = mine ? own.lines : ws.shared[pick(ws.shared.length)].lines;
      const rel = mine ? own.rel : ws.shared.find((s) => s.lines === lines).rel;
      const offset = 1 + pick(lines.length - 10);
      const limit = 10 + pick(30);
      const want = numbered(lines, offset, limit);
      await timedCall("read", "read", { path: rel, offset, limit }, (t) =>
        t.startsWith(want) ? undefined : `unexpected text: ${t.slice(0, 200)}`,
      );
    } else if (r < READ_SHARE + GREP_SHARE) {
      const k = pick(4);
      await timedCall("grep", "grep", { pattern: `marker_${k}:`, path: "src", output_mode: "count" }, (t) => {
        const total = t
          .split("\n")
          .map((l) => /:(\d+)$/.exec(l))
          .filter(Boolean)
          .reduce((n, m) => n + Number(m[1]), 0);
        return total === ws.markerCounts[k]
          ? undefined
          : `counted ${total} matches, expected ${ws.markerCounts[k]}: ${t.slice(0, 200)}`;
      });
    } else {
      // Edits of the client's own file: replace a line, insert one, or replace text.
      const v = next++;
      const kind = pick(3);
      if (kind === 0 || own.lines.length > OWN_LINES * 2) {
        const line = 1 + pick(own.lines.length);
        // Look before editing by number, as a model does: rt refuses a number that
        // moved since the caller last saw the file (its own earlier inserts shifted them).
        await timedCall("read", "read", { path: own.rel, offset: line, limit: 1 }, () => undefined);
        if (++i >= calls) break; // the look counts as one of the calls
        const k = /_v(\w+) =/.exec(own.lines[line - 1])[1];
        const content = ownLine(c, k, v);
        await timedCall(
          "edit",
          "edit_lines",
          { path: own.rel, command: "replace", start_line: line, new_content: content },
          () => undefined,
        );
        own.lines[line - 1] = content;
      } else if (kind === 1) {
        const line = 1 + pick(own.lines.length + 1);
        await timedCall("read", "read", { path: own.rel, offset: Math.max(1, line - 1), limit: 2 }, () => undefined);
        if (++i >= calls) break;
        const content = ownLine(c, `x${v}`, v);
        await timedCall("edit", "insert_at", { path: own.rel, line, new_text: content }, () => undefined);
        own.lines.splice(line - 1, 0, content);
      } else {
        const line = 1 + pick(own.lines.length);
        const old = own.lines[line - 1];
        const content = old.replace(/= \d+;$/, `= ${v};`);
        // The whole line is unique in the file (its name is), so old/new replacement finds exactly it.
        await timedCall("edit", "edit", { path: own.rel, old_string: old, new_string: content }, () => undefined);
        own.lines[line - 1] = content;
      }
    }
  }
  await client.close();
  return { lat, failures };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summarize(values) {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
  };
}

/**
 * Runs the load test. Returns the numbers and the problems found (empty when
 * every call was answered correctly and no file was corrupted).
 */
export async function runMcpLoad({ calls = 2000, clients = 8, cli = DEFAULT_CLI, log = () => {} } = {}) {
  const ws = makeWorkspace(clients);
  try {
    return await measure(ws, calls, clients, cli, log);
  } finally {
    fs.rmSync(ws.root, { recursive: true, force: true });
  }
}

async function measure(ws, calls, clients, cli, log) {
  const sharedHash = hashShared(ws.root, ws.shared);
  const server = await startServer(cli, ws.root);
  log(`rt mcp --http at ${server.url}: ${clients} clients, ${calls} calls`);
  const problems = [];
  let results;
  const t0 = performance.now();
  try {
    const per = Array.from({ length: clients }, (_, c) => Math.floor(calls / clients) + (c < calls % clients ? 1 : 0));
    results = await Promise.all(per.map((n, c) => runClient(c, server.url, server.token, ws, n, 1000 + c)));
  } finally {
    const { code, signal } = await server.stop();
    if (code !== 0)
      problems.push(`the server did not exit cleanly (code ${code}, signal ${signal}): ${server.stderr().slice(-500)}`);
  }
  const wallMs = performance.now() - t0;
  for (const r of results) problems.push(...r.failures);
  // No file corrupted: each client's file is exactly its model; shared files are untouched.
  for (const own of ws.own) {
    const actual = fs.readFileSync(path.join(ws.root, own.rel), "utf8");
    if (actual !== `${own.lines.join("\n")}\n`) problems.push(`${own.rel} does not hold what its client wrote`);
  }
  if (hashShared(ws.root, ws.shared) !== sharedHash) problems.push("a shared (never edited) file changed");
  const stray = fs.readdirSync(ws.root).filter((n) => ![".rt", "src", "own"].includes(n));
  if (stray.length) problems.push(`unexpected files in the workspace: ${stray.join(", ")}`);
  const answered = results.reduce((n, r) => n + r.lat.read.length + r.lat.grep.length + r.lat.edit.length, 0);
  const byKind = {};
  for (const kind of ["read", "grep", "edit"]) byKind[kind] = summarize(results.flatMap((r) => r.lat[kind]));
  const all = summarize(results.flatMap((r) => [...r.lat.read, ...r.lat.grep, ...r.lat.edit]));
  return { calls, clients, answered, wallMs, throughput: (answered / wallMs) * 1000, all, byKind, problems };
}

const ms = (v) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(1) : v.toFixed(0)} ms` : "—");

export const SECTION_START = "<!-- mcp-load:start -->";
export const SECTION_END = "<!-- mcp-load:end -->";

/** The BENCHMARKS.md section for a run. */
export function markdownSection(r, when = new Date()) {
  const row = (name, s) =>
    `| ${name} | ${s.n.toLocaleString("en")} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.max)} |`;
  return [
    SECTION_START,
    "## MCP server under load (`bench/mcp-load.mjs`)",
    "",
    `${r.clients} concurrent MCP clients (the SDK's client over Streamable HTTP) against one \`rt mcp --http\` on 127.0.0.1,`,
    `${r.calls.toLocaleString("en")} calls in all, each client one call at a time: ${READ_SHARE * 100}% \`read\` (10-40 lines of one of`,
    `${SHARED_FILES} shared ${SHARED_LINES}-line TypeScript files, or of the client's own file), ${GREP_SHARE * 100}% \`grep\` (count of a marker across`,
    `the shared files), ${Math.round((1 - READ_SHARE - GREP_SHARE) * 100)}% edits of the client's own TypeScript file (\`edit_lines\` replace, \`insert_at\`, \`edit\` old/new;`,
    "each validated with tree-sitter and written atomically). Every answer is checked against what the client knows the",
    "file holds; at the end each client's file must equal its model and the shared files must be unchanged. Latency is",
    "the client's round trip for one `tools/call` (HTTP, SSE framing and JSON included).",
    "",
    `- Date: ${when.toISOString()}; Node ${process.version}; ${os.cpus().length} cores; load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`,
    `- Answered: ${r.answered.toLocaleString("en")} of ${r.calls.toLocaleString("en")}; problems: ${r.problems.length === 0 ? "none (every answer correct, no file corrupted)" : r.problems.length}`,
    `- Wall time ${(r.wallMs / 1000).toFixed(1)} s, ${r.throughput.toFixed(0)} calls/s`,
    "",
    "| calls | n | p50 | p90 | p99 | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    row("all", r.all),
    row("read", r.byKind.read),
    row("grep", r.byKind.grep),
    row("edit", r.byKind.edit),
    ...(r.problems.length ? ["", "Problems:", "", ...r.problems.slice(0, 20).map((p) => `- ${p}`)] : []),
    SECTION_END,
  ].join("\n");
}

/** Replaces this benchmark's section of BENCHMARKS.md (or appends it). */
export function writeSection(section, file = path.join(REPO, "BENCHMARKS.md")) {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# rt benchmarks\n";
  const a = text.indexOf(SECTION_START);
  const b = text.indexOf(SECTION_END);
  const next =
    a !== -1 && b > a
      ? text.slice(0, a) + section + text.slice(b + SECTION_END.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i === -1 ? dflt : Number(argv[i + 1]);
  };
  if (!fs.existsSync(DEFAULT_CLI)) throw new Error(`${DEFAULT_CLI} is missing: run npm run build first`);
  const r = await runMcpLoad({
    calls: opt("--calls", 2000),
    clients: opt("--clients", 8),
    log: (s) => process.stderr.write(`${s}\n`),
  });
  const section = markdownSection(r);
  process.stdout.write(`${section}\n`);
  if (argv.includes("--write")) writeSection(section);
  process.exitCode = r.problems.length ? 1 : 0;
}
