#!/usr/bin/env node
// rt's agent side by side with Codex CLI and Claude Code, all three driven by one scripted model
// server on loopback (test/llm-server.ts) through the same five-step session on a copy of rt's own
// src/ (a git repository): grep a symbol, read the ~2,000-line file that defines it, replace one line
// of it exactly, list a directory, answer. Each tool is told to use its own tools: the server looks
// at the tools a request offers and answers with the call that tool would make (rt: grep, read,
// edit, ls; Codex: exec_command and apply_patch; Claude Code: Bash, Read, Edit). The measured
// figure is each step's round trip: from the last byte of the server's answer carrying a tool call
// to the first byte of the next request, the time the tool spends parsing the answer, running the
// call and sending the result. Each round starts every tool once in a fresh copy of the repository
// (the order rotates every round); the medians are reported.
//
//   node bench/peers.mjs --install      installs the pinned peers into bench/peers/ (gitignored) from npm
//   node bench/peers.mjs [--rounds N] [--think-ms MS] [--only rt-anthropic,codex,...] [--json] [--cli dist/cli.js]
//   (--only with rt's rows alone, e.g. rt-anthropic,rt-no-lsp, needs no peer installed)
//
// --think-ms holds each answer back that long before its first byte, as a model takes time to its
// first token (0 by default: the answers come at once, the hardest case for work done ahead).
//
// rt runs twice: on the Anthropic protocol (as Claude Code) and on the Responses API (as Codex).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
/** Where the peers are installed: outside the package, ignored by git. */
export const PEERS_DIR = path.join(BENCH, "peers");
/** The versions measured (exact: a new release is a new measurement). */
export const PEER_VERSIONS = { "@openai/codex": "0.171.0", "@anthropic-ai/claude-code": "2.1.332" };
const NM = path.join(PEERS_DIR, "node_modules");
const ARCH = { x64: "x86_64", arm64: "aarch64" }[process.arch];
/** Codex's npm package carries its native binary in a per-platform optional dependency. */
const CODEX_BIN = path.join(NM, `@openai/codex-linux-${process.arch}/vendor/${ARCH}-unknown-linux-musl/bin/codex`);
/** Claude Code's postinstall puts the native binary of its platform package in place of bin/claude.exe. */
const CLAUDE_BIN = path.join(NM, "@anthropic-ai/claude-code/bin/claude.exe");
/** A run that has not finished by then is killed and reported. */
const RUN_TIMEOUT_MS = 120_000;
/** The model names the peers are started with: gpt-5.5 is one Codex knows, so it offers apply_patch. */
const CODEX_MODEL = "gpt-5.5";
const CLAUDE_MODEL = "claude-sonnet-4-5";

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};

/** Why the peers cannot run here, or undefined when both are installed and start. */
export function peersMissing() {
  if (process.platform !== "linux" || !ARCH)
    return `the peers' native binaries are wired here for Linux x64/arm64 only`;
  for (const [name, bin] of [
    ["Codex CLI", CODEX_BIN],
    ["Claude Code", CLAUDE_BIN],
  ]) {
    if (!fs.existsSync(bin))
      return `${name} is not installed in ${path.relative(REPO, PEERS_DIR)}/ (${bin} is missing)`;
    const v = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
    if (v.status !== 0) return `${name} does not start: ${(v.stderr || v.error?.message || "").trim().slice(0, 200)}`;
  }
  return undefined;
}

/** Installs the pinned peers with npm into bench/peers/ (about 800 MB: both ship native binaries). */
export function installPeers(log = (s) => process.stderr.write(`${s}\n`)) {
  fs.mkdirSync(PEERS_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(PEERS_DIR, "package.json"),
    `${JSON.stringify({ name: "rt-bench-peers", private: true, dependencies: PEER_VERSIONS }, null, 2)}\n`,
  );
  log(
    `installing ${Object.entries(PEER_VERSIONS)
      .map(([n, v]) => `${n}@${v}`)
      .join(", ")} into ${PEERS_DIR}`,
  );
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts=false"], {
    cwd: PEERS_DIR,
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error(`npm install in ${PEERS_DIR} failed (exit ${r.status})`);
  // Claude Code's postinstall copies its platform binary over a placeholder; npm versions that hold back
  // install scripts leave the placeholder, so run it here when that happened.
  const claudeDir = path.join(NM, "@anthropic-ai/claude-code");
  if (fs.statSync(CLAUDE_BIN).size < 1_000_000) {
    const p = spawnSync(process.execPath, ["install.cjs"], { cwd: claudeDir, stdio: "inherit" });
    if (p.status !== 0) throw new Error("Claude Code's install.cjs failed");
  }
}

// ---------------------------------------------------------------------------
// The repository and the session.

/** A git repository holding a copy of rt's src/; the session's target is its largest file of 1,500-2,500 lines. */
function makeRepo() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-peers-repo-"));
  fs.cpSync(path.join(REPO, "src"), path.join(root, "src"), { recursive: true });
  const git = (...a) => spawnSync("git", a, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "copy of rt's src");
  return root;
}

/** The session's file, symbol and line (the same for every tool and round). */
function pickTarget() {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) files.push(p);
    }
  };
  walk(path.join(REPO, "src"));
  const sized = files
    .map((f) => ({ f, text: fs.readFileSync(f, "utf8") }))
    .map((x) => ({ ...x, lines: x.text.split("\n").length }))
    .filter((x) => x.lines >= 1500 && x.lines <= 2500)
    .sort((a, b) => b.lines - a.lines);
  for (const { f, text, lines } of sized) {
    const all = text.split("\n");
    for (const line of all) {
      const m = /^export function (\w+)\(/.exec(line);
      if (m && all.filter((l) => l === line).length === 1) {
        return {
          file: path.relative(REPO, f),
          lines,
          bytes: Buffer.byteLength(text),
          symbol: m[1],
          oldLine: line,
          newLine: `${line} // checked by the peer benchmark`,
        };
      }
    }
  }
  throw new Error("no file of 1,500-2,500 lines with a unique `export function` line in src/");
}

/** How many tool results a request's history holds: which step of the session it asks for. */
function resultsIn(body, protocol) {
  if (protocol === "responses")
    return (body?.input ?? []).filter(
      (i) => i?.type === "function_call_output" || i?.type === "custom_tool_call_output",
    ).length;
  let n = 0;
  for (const m of body?.messages ?? [])
    if (Array.isArray(m.content)) n += m.content.filter((b) => b?.type === "tool_result").length;
  return n;
}

const STEPS = ["grep", "read", "edit", "ls"];

/** The calls each tool makes for the four steps, in its own tools' terms. */
function callsFor(tool, t, root) {
  const abs = path.join(root, t.file);
  const shell = (name, key) => (cmd) => ({ name, arguments: { [key]: cmd } });
  if (tool === "codex") {
    const sh = shell("exec_command", "cmd");
    return [
      sh(`grep -rn ${t.symbol} src`),
      sh(`cat ${t.file}`),
      {
        name: "apply_patch",
        arguments: `*** Begin Patch\n*** Update File: ${t.file}\n@@\n-${t.oldLine}\n+${t.newLine}\n*** End Patch\n`,
      },
      sh("ls src"),
    ];
  }
  if (tool === "claude") {
    const sh = (cmd) => ({ name: "Bash", arguments: { command: cmd, description: "run" } });
    return [
      sh(`grep -rn ${t.symbol} src`),
      { name: "Read", arguments: { file_path: abs } },
      { name: "Edit", arguments: { file_path: abs, old_string: t.oldLine, new_string: t.newLine } },
      sh("ls src"),
    ];
  }
  return [
    { name: "grep", arguments: { pattern: t.symbol, path: "src" } },
    { name: "read", arguments: { path: t.file } },
    { name: "edit", arguments: { path: t.file, old_string: t.oldLine, new_string: t.newLine } },
    { name: "ls", arguments: { path: "src" } },
  ];
}

/** The tool a request must offer to be a turn of the session (other requests, e.g. a title, get a short text). */
const EDIT_TOOL = {
  codex: "apply_patch",
  claude: "Edit",
  "rt-anthropic": "edit",
  "rt-responses": "edit",
  "rt-no-lsp": "edit",
};

const TOOLS = {
  "rt-anthropic": { label: "rt (Anthropic protocol)", protocol: "anthropic" },
  "rt-responses": { label: "rt (Responses API)", protocol: "responses" },
  // Neither peer asks a language server about an edit; rt's agent does by default (lsp.edit_diagnostics).
  "rt-no-lsp": { label: "rt (Anthropic, no edit diagnostics)", protocol: "anthropic" },
  codex: { label: `Codex CLI ${PEER_VERSIONS["@openai/codex"]}`, protocol: "responses" },
  claude: { label: `Claude Code ${PEER_VERSIONS["@anthropic-ai/claude-code"]}`, protocol: "anthropic" },
};

const PROMPT = "Find where the symbol is defined, read that file, make the one-line change, list src, then answer.";

function command(tool, server, root, home, cli) {
  const base = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" };
  delete base.RT_ROOT;
  if (tool === "codex")
    return {
      cmd: CODEX_BIN,
      args: [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "-m",
        CODEX_MODEL,
        "-c",
        "model_provider=bench",
        "-c",
        `model_providers.bench={name="bench",base_url="${server.openaiBaseUrl}",wire_api="responses",env_key="BENCH_KEY"}`,
        "-c",
        "check_for_update_on_startup=false",
        PROMPT,
      ],
      env: { ...base, CODEX_HOME: home, BENCH_KEY: "bench" },
    };
  if (tool === "claude")
    return {
      cmd: CLAUDE_BIN,
      args: [
        "-p",
        PROMPT,
        "--model",
        CLAUDE_MODEL,
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
      ],
      env: {
        ...base,
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "bench",
        // No telemetry, update checks or other traffic off the loopback; IS_SANDBOX lets root skip permissions.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        IS_SANDBOX: "1",
      },
    };
  const responses = tool === "rt-responses";
  if (tool === "rt-no-lsp") {
    fs.mkdirSync(path.join(home, ".config", "rt"), { recursive: true });
    fs.writeFileSync(path.join(home, ".config", "rt", "config.json"), '{"lsp":{"edit_diagnostics":false}}\n');
  }
  return {
    cmd: process.execPath,
    args: [
      // Node's own flags for rt's process, e.g. RT_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
      ...(process.env.RT_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
      cli,
      "run",
      PROMPT,
      "--model",
      responses ? `openai-responses/${CODEX_MODEL}` : `anthropic/${CLAUDE_MODEL}`,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
    ],
    env: responses
      ? { ...base, OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: "bench" }
      : { ...base, ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: "bench" },
  };
}

/** One run of one tool through the session in a fresh repository: each step's round trip, start-up, whether the edit landed. */
async function runOnce(tool, server, target, cli, thinkMs) {
  const root = makeRepo();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "rt-peers-home-"));
  fs.mkdirSync(path.join(home, ".config"));
  const { protocol } = TOOLS[tool];
  const calls = callsFor(tool, target, root);
  server.reset();
  const turns = [];
  const answer = (req) => {
    const offered = (req.body?.tools ?? []).some((t) => t?.name === EDIT_TOOL[tool]);
    if (!offered || req.protocol !== protocol) return { text: "ok" };
    const step = resultsIn(req.body, protocol);
    turns.push({ req, step });
    const think = thinkMs ? { delayMs: thinkMs } : {};
    if (step < calls.length) return { toolCalls: [{ id: `call_${step + 1}`, ...calls[step] }], ...think };
    return { text: "Done: the line is changed and src is listed.", ...think };
  };
  for (let i = 0; i < 60; i++) server.script(answer);
  const { cmd, args, env } = command(tool, server, root, home, cli);
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err += d;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
  const code = await new Promise((r) => child.on("close", (c) => r(c)));
  clearTimeout(timer);
  const landed = fs.readFileSync(path.join(root, target.file), "utf8").split("\n").includes(target.newLine);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
  const trips = {};
  for (let s = 0; s < STEPS.length; s++) {
    const asked = turns.find((x) => x.step === s);
    const next = turns.find((x) => x.step === s + 1);
    if (asked?.req.answeredAt !== undefined && next) trips[STEPS[s]] = next.req.receivedAt - asked.req.answeredAt;
  }
  const problem =
    code !== 0
      ? `exit ${code}: ${(err || out).trim().slice(-400)}`
      : !landed
        ? "the edit did not land"
        : turns.length < STEPS.length + 1
          ? `only ${turns.length} session requests`
          : undefined;
  return { trips, startMs: turns[0] ? turns[0].req.receivedAt - t0 : Number.NaN, landed, problem };
}

/**
 * The comparison: `rounds` runs of each tool, interleaved. The target: rt's edit round trip at most
 * 1.2x the faster of Codex CLI's and Claude Code's.
 */
export async function runPeers({
  rounds = 5,
  cli = path.join(REPO, "dist", "cli.js"),
  tools = Object.keys(TOOLS),
  thinkMs = 0,
  log = () => {},
} = {}) {
  const { register } = await import("tsx/esm/api");
  register();
  const { startLlmServer } = await import(pathToFileURL(path.join(REPO, "test/llm-server.ts")).href);
  const server = await startLlmServer({ models: [{ name: CODEX_MODEL }, { name: CLAUDE_MODEL }] });
  const target = pickTarget();
  const runs = Object.fromEntries(tools.map((t) => [t, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      const order = tools.map((_, i) => tools[(i + r) % tools.length]);
      for (const tool of order) {
        const res = await runOnce(tool, server, target, cli, thinkMs);
        log(
          `round ${r + 1} ${tool}: ${STEPS.map((s) => `${s} ${res.trips[s]?.toFixed(1) ?? "-"}`).join(", ")} ms${res.problem ? ` (${res.problem})` : ""}`,
        );
        runs[tool].push(res);
      }
    }
  } finally {
    await server.close();
  }
  const summary = {};
  for (const tool of tools) {
    const ok = runs[tool].filter((x) => !x.problem);
    summary[tool] = {
      label: TOOLS[tool].label,
      runs: runs[tool].length,
      ok: ok.length,
      problems: runs[tool].filter((x) => x.problem).map((x) => x.problem),
      startMs: median(ok.map((x) => x.startMs)),
      ...Object.fromEntries(
        STEPS.map((s) => [`${s}Ms`, median(ok.map((x) => x.trips[s]).filter((v) => v !== undefined))]),
      ),
    };
  }
  const peers = ["codex", "claude"].filter((t) => summary[t]?.ok);
  const fastestPeer = peers.length ? Math.min(...peers.map((t) => summary[t].editMs)) : Number.NaN;
  return { target, rounds, thinkMs, summary, fastestPeer };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const log = (s) => process.stderr.write(`${s}\n`);
  if (argv.includes("--install")) installPeers(log);
  const only = opt("only");
  // rt's own rows (--only rt-anthropic,rt-no-lsp...) run without the peers installed.
  const missing = (only ? only.split(",") : Object.keys(TOOLS)).some((t) => !t.startsWith("rt-"))
    ? peersMissing()
    : undefined;
  if (missing) {
    log(`peers: ${missing}; install them with: node bench/peers.mjs --install`);
    process.exit(2);
  }
  const r = await runPeers({
    rounds: Number(opt("rounds", "5")),
    thinkMs: Number(opt("think-ms", "0")),
    cli: path.resolve(opt("cli", path.join(REPO, "dist", "cli.js"))),
    ...(only ? { tools: only.split(",") } : {}),
    log,
  });
  if (argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(
      `session on ${r.target.file} (${r.target.lines} lines, ${r.target.bytes} bytes), symbol ${r.target.symbol}; model think time ${r.thinkMs} ms; median of ${r.rounds} runs, ms`,
    );
    console.log(["tool", "start", ...STEPS, "ok"].map((s) => s.padStart(8)).join(" "));
    for (const s of Object.values(r.summary)) {
      console.log(
        [
          s.label.padEnd(30),
          ...[s.startMs, ...STEPS.map((x) => s[`${x}Ms`])].map((v) =>
            (Number.isFinite(v) ? v.toFixed(1) : "-").padStart(8),
          ),
          `${s.ok}/${s.runs}`.padStart(8),
        ].join(" "),
      );
      for (const p of new Set(s.problems)) console.log(`   ${p}`);
    }
    for (const t of ["rt-anthropic", "rt-responses", "rt-no-lsp"])
      if (r.summary[t] && Number.isFinite(r.fastestPeer))
        console.log(
          `${r.summary[t].label}: edit round trip ${(r.summary[t].editMs / r.fastestPeer).toFixed(2)}x the fastest peer (target <= 1.2x)`,
        );
  }
}
