#!/usr/bin/env node
// The lsp tool's diagnostics on rt's own src/ (copied with its
// tsconfig.json to a temp directory, node_modules linked), against the
// TypeScript compiler checking the same files (`tsc --noEmit -p .`), each in a
// fresh Node process, rounds interleaved, medians compared.
//
//   node bench/lsp.mjs                 the table rows, printed
//   node bench/lsp.mjs --rounds 3
//   node bench/lsp.mjs --child MODE    one measurement (used by the above)
//
// Modes:
//   tsc    the reference: `tsc --noEmit -p .` run to completion (the whole project type-checked)
//   cold   `lsp diagnostics src` in a fresh process: typescript-language-server started,
//          every file of src/ opened and its diagnostics collected (timed from the call to its result)
//   warm   the same process afterwards: one file of src/ changed (a comment appended), then
//          `lsp diagnostics src` again (the server re-checks what the change affects)
//
// Mistake model: wall time on a shared 2-core machine is noisy, so medians of
// interleaved rounds. What it would miss: a server that answers before it has
// checked (diagnostics published empty first): the rows also report how many
// diagnostics each call returned, which must be the count tsc finds (0 on rt's
// own sources), and the warm round appends a comment that changes no type.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const LIB = path.join(REPO, "dist", "index.js");
const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");

/** A copy of src/ and tsconfig.json in a new temp directory, with node_modules linked. */
export function makeProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-bench-lsp-"));
  fs.cpSync(path.join(REPO, "src"), path.join(dir, "src"), { recursive: true });
  const tsconfig = JSON.parse(fs.readFileSync(path.join(REPO, "tsconfig.json"), "utf8"));
  // Only src/: tests and benchmarks are not part of what is measured.
  tsconfig.include = ["src"];
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  // package.json says "type": "module", which NodeNext resolution needs to read src/ as ES modules.
  fs.copyFileSync(path.join(REPO, "package.json"), path.join(dir, "package.json"));
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  spawnSync("git", ["init", "-q"], { cwd: dir });
  return dir;
}

async function child(mode, dir) {
  const { createWorkspace, callTool } = await import(pathToFileURL(LIB).href);
  const ws = createWorkspace({ root: dir, state: false });
  const t0 = performance.now();
  const first = await callTool(ws, "lsp", { operation: "diagnostics", path: "src" });
  const cold = performance.now() - t0;
  if (!first.success) throw new Error(first.error);
  const out = { cold, files: first.files, errors: first.errors, diagnostics: first.diagnostics.length };
  if (mode === "warm") {
    fs.appendFileSync(path.join(dir, "src", "tools", "policy.ts"), `\n// bench ${Date.now()}\n`);
    const t1 = performance.now();
    const again = await callTool(ws, "lsp", { operation: "diagnostics", path: "src" });
    out.warm = performance.now() - t1;
    if (!again.success) throw new Error(again.error);
    out.warmErrors = again.errors;
  }
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

function measure(mode, dir) {
  if (mode === "tsc") {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [TSC, "--noEmit", "-p", "."], { cwd: dir, encoding: "utf8" });
    const ms = performance.now() - t0;
    const errors = (r.stdout.match(/error TS\d+/g) ?? []).length;
    return { tsc: ms, errors };
  }
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", mode, dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`lsp bench child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export function runLsp({ rounds = 5, log = () => {} } = {}) {
  const dir = makeProject();
  try {
    const tsc = [];
    const cold = [];
    const warm = [];
    let counts;
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? ["warm", "tsc"] : ["tsc", "warm"];
      for (const m of order) {
        const r = measure(m, dir);
        if (m === "tsc") tsc.push(r.tsc);
        else {
          cold.push(r.cold);
          warm.push(r.warm);
          counts = { files: r.files, errors: r.errors, diagnostics: r.diagnostics, warmErrors: r.warmErrors };
        }
      }
      log(
        `  round ${i + 1}/${rounds}: tsc ${Math.round(tsc.at(-1))} ms, lsp cold ${Math.round(cold.at(-1))} ms, warm ${Math.round(warm.at(-1))} ms`,
      );
    }
    const tscErrors = measure("tsc", dir).errors;
    return { tsc: median(tsc), cold: median(cold), warm: median(warm), ...counts, tscErrors };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") await child(argv[1], argv[2]);
else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = argv.indexOf("--rounds");
  const r = runLsp({ rounds: i === -1 ? 5 : Number(argv[i + 1]), log: (s) => process.stderr.write(`${s}\n`) });
  console.log(JSON.stringify(r, null, 2));
}
