// sharp, pdf.js and @napi-rs/canvas load only when read meets an image or a
// PDF (issue 16): the CLI bundle and the library import them with import(),
// and `rt open` on a text file never loads them.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { REPO, tempTree, cliBundleText, staticGraph } from "../helpers.ts";

const HEAVY = ["sharp", "pdfjs-dist", "@napi-rs/canvas"];

test("the CLI bundle loads sharp, pdf.js and the canvas on demand only", () => {
  const cli = cliBundleText();
  const start = staticGraph(path.join(REPO, "dist", "cli.js")).packages;
  for (const m of HEAVY) assert.ok(!start.has(m), `dist/cli.js imports ${m} at start-up`);
  assert.ok(cli.includes('import("sharp")'), "sharp is imported on demand");
  // pdf.js runs in a worker thread started from dist/pdf-worker.js when a PDF is read; rt's own thread never loads it.
  assert.ok(!/import\(\s*"pdfjs-dist/.test(cli), "the CLI bundle imports pdf.js itself");
  assert.ok(cli.includes('"./pdf-worker.js"'), "the CLI bundle starts the PDF worker by its name");
  const worker = path.join(REPO, "dist", "pdf-worker.js");
  const workerLoads = staticGraph(worker).packages;
  for (const m of HEAVY) assert.ok(!workerLoads.has(m), `dist/pdf-worker.js imports ${m} before it is asked`);
  const workerText = fs.readFileSync(worker, "utf8");
  assert.ok(workerText.includes('import("pdfjs-dist/legacy/build/pdf.mjs")'), "the worker imports pdf.js");
  assert.ok(workerText.includes('import("@napi-rs/canvas")'), "the worker imports the canvas to render only");
});

test("rt open of a text file loads none of them; rt read of a PNG loads sharp", () => {
  const root = tempTree({ "a.txt": "hello\n" });
  // The CommonJS loader sees every require, sharp's own and the bundle's.
  const hook = path.join(root, "hook.cjs");
  fs.writeFileSync(
    hook,
    `const M = require("module"); const load = M._load; M._load = function (r, ...a) { if (/^(sharp|pdfjs-dist|@napi-rs\\/canvas|@img\\/)/.test(r)) process.stderr.write("LOADED " + r + "\\n"); return load.call(this, r, ...a); };`,
  );
  const run = (args: string[]) =>
    spawnSync(process.execPath, ["--require", hook, path.join(REPO, "dist", "cli.js"), ...args], {
      cwd: root,
      encoding: "utf8",
    });
  const open = run(["open", "a.txt"]);
  assert.equal(open.status, 0, open.stderr);
  assert.doesNotMatch(open.stderr, /LOADED/);
  // A 1x1 PNG, written by hand (signature, IHDR, IDAT, IEND).
  fs.writeFileSync(
    path.join(root, "dot.png"),
    Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    ),
  );
  const read = run(["read", "dot.png"]);
  assert.equal(read.status, 0, read.stderr);
  assert.match(read.stdout, /^dot\.png: PNG image, 70 bytes, 1x1 pixels$/m);
  assert.match(read.stderr, /LOADED @img\/sharp-/);
});
