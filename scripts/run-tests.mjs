// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [--times [--jobs N] [--write]] [substring-filter ...]
//   Files start slowest first (by test/file-times.json, the wall seconds a --times --write run
//   recorded; a file it does not list starts first), so that no long file starts last and runs alone.
//   --times: each file runs in its own `node --test` process (N at a time, 2 by default, as in `npm test`);
//            prints the wall time and CPU time (user + sys, from /usr/bin/time when present) per file,
//            slowest first, and the output of the files that failed. --write records the times in
//            test/file-times.json (commit it when the order changed a lot).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { spawn, spawnSync } from "node:child_process";

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "fixtures") out.push(...collect(p));
    } else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}
// Node 20 reads and parses the whole bundle named by NODE_EXTRA_CA_CERTS when any Node process starts
// (about 0.12 s of CPU each where it names the system's bundle), and the tests start thousands: rt,
// servers, workers. Every server the tests talk to is on loopback, and a test that needs a CA of its
// own sets the variable for the process it starts.
const testEnv = { ...process.env };
delete testEnv.NODE_EXTRA_CA_CERTS;
const argv = process.argv.slice(2);
const times = argv.includes("--times");
const jobsAt = argv.indexOf("--jobs");
const jobs = jobsAt >= 0 ? Number(argv[jobsAt + 1]) : 2;
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error("--jobs takes a whole number of files to run at a time (1 or more)");
  process.exit(2);
}
const write = argv.includes("--write");
const filters = argv.filter(
  (a, i) => !["--times", "--jobs", "--write"].includes(a) && !(jobsAt >= 0 && i === jobsAt + 1),
);
const TIMES_FILE = "test/file-times.json";
const known = existsSync(TIMES_FILE) ? JSON.parse(readFileSync(TIMES_FILE, "utf8")) : {};
const files = collect("test")
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort((a, b) => (known[b] ?? Number.POSITIVE_INFINITY) - (known[a] ?? Number.POSITIVE_INFINITY));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(2);
}
if (!times) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
    stdio: "inherit",
    env: testEnv,
  });
  process.exit(r.status ?? 1);
}

// --times: one process per file, `jobs` at a time, timed from spawn to exit.
const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const scratch = mkdtempSync(join(tmpdir(), "rt-test-times-"));
const runOne = (file, i) =>
  new Promise((resolve) => {
    const cpuFile = join(scratch, `${i}.cpu`);
    const node = [process.execPath, "--import", "tsx", "--test", file];
    const [cmd, ...args] = timeBin ? [timeBin, "-f", "%U %S", "-o", cpuFile, ...node] : node;
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: testEnv });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("close", (code) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      let cpu = null;
      if (timeBin && existsSync(cpuFile)) {
        const [user, sys] = readFileSync(cpuFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
        cpu = user + sys;
      }
      const cpuText = cpu === null ? "" : ` (${cpu.toFixed(1)} s CPU)`;
      process.stderr.write(`${code === 0 ? "ok  " : "FAIL"} ${wall.toFixed(1).padStart(6)} s${cpuText}  ${file}\n`);
      resolve({ file, code, wall, cpu, output });
    });
  });
const results = [];
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: Math.min(jobs, files.length) }, async () => {
    while (next < files.length) {
      const i = next++;
      results.push(await runOne(files[i], i));
    }
  }),
);
const total = Number(process.hrtime.bigint() - started) / 1e9;
rmSync(scratch, { recursive: true, force: true });
const failed = results.filter((r) => r.code !== 0);
for (const r of failed) console.log(`\n=== ${r.file} (exit ${r.code}) ===\n${r.output}`);
console.log("\n  wall s   cpu s  file (slowest first)");
for (const r of [...results].sort((a, b) => b.wall - a.wall)) {
  const cpu = r.cpu === null ? "      -" : r.cpu.toFixed(1).padStart(7);
  console.log(`${r.wall.toFixed(1).padStart(8)} ${cpu}  ${r.file}${r.code === 0 ? "" : "  FAILED"}`);
}
if (write) {
  const recorded = { ...known };
  for (const r of results) recorded[r.file] = Math.round(r.wall * 10) / 10;
  const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(TIMES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}
const sum = results.reduce((s, r) => s + r.wall, 0);
console.log(`${files.length} files, ${failed.length} failed; ${total.toFixed(1)} s wall with ${jobs} at a time`);
console.log(`(sum of per-file wall times ${sum.toFixed(1)} s)`);
process.exit(failed.length === 0 ? 0 : 1);
