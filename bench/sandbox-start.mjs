#!/usr/bin/env node
// The first sandboxed command of a process: how long rt's `bash` tool
// takes, in a fresh Node process, to run its first command in the read-only
// sandbox, against bubblewrap alone (`bwrap --ro-bind / / true`) started the
// same way from a fresh Node process. Both time only the operation (from the
// call to its result), not Node's own start-up or the import of rt.
//
//   node bench/sandbox-start.mjs                 the table rows, printed
//   node bench/sandbox-start.mjs --rounds 5
//   node bench/sandbox-start.mjs --child MODE    one measurement (used by the above)
//
// Modes (each a fresh process, rounds interleaved, medians compared):
//   bare        spawn `bwrap --ro-bind / / true`, wait for it
//   first       the bash tool's first call, `true`, in a safe-read-only workspace,
//               with this user's probe cache present (the usual case)
//   pipeline    the same with `ls -la | head -n 3 && echo done`: a plain list, checked
//               without the shell parser
//   parser      the same with `echo "$HOME" | wc -c`: quotes and an expansion, which
//               need the shell parser (tree-sitter-bash, loaded on first use)
//   cold        `true`, with an empty cache directory (the first command after
//               installing rt or rebooting: bubblewrap is probed)
//   later       the second call, once everything is loaded
//
// Mistake model: what this measures is wall time of one call on a shared
// machine, so single runs are noisy (other processes, page cache); medians of
// interleaved rounds cancel most of it. What it would miss: a cost paid outside
// the call (work left for Node's exit, such as background compilation, which
// made `rt bash` take 0.9 s before), so `exit` below also times the whole
// process for `first`, against the same for `bare`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const LIB = path.join(REPO, "dist", "index.js");
const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => fs.existsSync(p)) ?? "bwrap";

async function child(mode) {
  if (mode === "bare") {
    const t0 = performance.now();
    await new Promise((resolve, reject) => {
      const c = spawn(BWRAP, ["--ro-bind", "/", "/", "true"], { stdio: ["ignore", "pipe", "pipe"] });
      c.stdout.resume();
      c.stderr.resume();
      c.on("error", reject);
      c.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exit ${code}`))));
    });
    return performance.now() - t0;
  }
  const { createWorkspace, callTool } = await import(pathToFileURL(LIB).href);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-bench-sbx-"));
  try {
    const ws = createWorkspace({ root, profile: "safe-read-only" });
    const command =
      mode === "pipeline" ? "ls -la | head -n 3 && echo done" : mode === "parser" ? 'echo "$HOME" | wc -c' : "true";
    const call = async () => {
      const r = await callTool(ws, "bash", { command });
      if (!r.success || r.sandboxed !== true)
        throw new Error(`bash ${command}: ${r.error ?? "not sandboxed"}\n${r.output}`);
    };
    if (mode === "later") await call();
    const t0 = performance.now();
    await call();
    return performance.now() - t0;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function once(mode, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", mode], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`sandbox-start ${mode}: exit ${r.status}\n${r.stderr}`);
  return { op: Number(r.stdout.trim()), wall };
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/** Measures every mode for `rounds` interleaved rounds; returns medians (ms) of the operation and of the whole process. */
export function runSandboxStart({ rounds = 11, log = () => {} } = {}) {
  const cold = fs.mkdtempSync(path.join(os.tmpdir(), "rt-bench-cache-"));
  const modes = [
    { name: "bare" },
    { name: "first" },
    { name: "pipeline" },
    { name: "parser" },
    { name: "later" },
    // An empty cache directory every time: the probe runs.
    { name: "cold", env: () => ({ XDG_CACHE_HOME: fs.mkdtempSync(path.join(cold, "c-")) }) },
  ];
  try {
    once("first"); // warm-up: page cache, and this user's probe cache
    const times = Object.fromEntries(modes.map((m) => [m.name, { op: [], wall: [] }]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...modes].reverse() : modes;
      for (const m of order) {
        const t = once(m.name, m.env?.());
        times[m.name].op.push(t.op);
        times[m.name].wall.push(t.wall);
      }
    }
    const out = {};
    for (const [name, t] of Object.entries(times))
      out[name] = { op: median(t.op), wall: median(t.wall), n: t.op.length };
    log(
      `  sandbox start: ${Object.entries(out)
        .map(([k, v]) => `${k} ${v.op.toFixed(1)} ms`)
        .join(", ")}`,
    );
    return out;
  } finally {
    fs.rmSync(cold, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  process.stdout.write(`${(await child(argv[1])).toFixed(3)}\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = argv.indexOf("--rounds");
  const r = runSandboxStart({
    rounds: i === -1 ? 11 : Number(argv[i + 1]),
    log: (s) => process.stderr.write(`${s}\n`),
  });
  console.log(JSON.stringify(r, null, 2));
}
