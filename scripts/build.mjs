// Builds dist/ with one esbuild run: ES modules with code splitting, for the
// `rt` executable and the library together.
//
//   dist/cli.js          the `rt` executable (entry: src/cli.ts)
//   dist/index.js        the library (entry: src/index.ts)
//   dist/pdf-worker.js   the worker thread pdf.js runs in (entry: src/parsers/pdfWorker.ts;
//                        src/parsers/pdf.ts starts it by this name)
//   dist/chunks/*.js     code shared by the two, and every module the source
//                        imports with a dynamic import(): it loads when used
//   dist/types/          type declarations for library users (tsc)
//   dist/package.json    {"type": "module"}
//
// Start-up cost follows what a command loads, and the source decides that:
// what a command needs only sometimes is imported with `await import()` where
// it is used (see docs/build.md, and the load budget test in
// test/build/load-budget.test.ts, which fails when a stray top-level import
// makes `rt open` or `rt grep` load more).
//
// One idea beyond the defaults, kept because it was measured to save more than
// 10 ms per command (docs/build.md): zod and diff are bundled (esbuild keeps
// only the parts rt uses), where the other npm packages stay external, loaded
// from node_modules when imported.
// Nothing is minified: stack traces point at real lines of dist/.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));

/** npm packages compiled into dist/ rather than imported from node_modules (see above). */
const BUNDLED = ["zod", "diff"];
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })
  .filter((name) => !BUNDLED.includes(name))
  .flatMap((name) => [name, `${name}/*`]);

const result = await build({
  entryPoints: { cli: "src/cli.ts", index: "src/index.ts", "pdf-worker": "src/parsers/pdfWorker.ts" },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  write: false,
  metafile: true,
  logLevel: "warning",
});

// RT_BUILD_META=FILE writes esbuild's metafile: which modules each output holds, and why (who imports them).
if (process.env.RT_BUILD_META) fs.writeFileSync(process.env.RT_BUILD_META, JSON.stringify(result.metafile));

/** Replaces a file in one step, so a test running `rt` meanwhile never sees half of it. */
function writeAtomic(file, data, mode) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, mode ? { mode } : undefined);
  fs.renameSync(tmp, file);
}

// dist/ is not emptied first (tests running meanwhile may be using it): the
// chunks go first (their names hold a hash of their content), then the entry
// files that import them; then what no longer belongs to the build is removed.
const outputs = result.outputFiles.map((f) => ({ file: path.relative(process.cwd(), f.path), contents: f.contents }));
const isEntry = (file) => ["dist/cli.js", "dist/index.js"].includes(file);
for (const o of outputs.filter((o) => !isEntry(o.file))) writeAtomic(o.file, o.contents);
writeAtomic("dist/package.json", `${JSON.stringify({ type: "module" })}\n`);
for (const o of outputs.filter((o) => isEntry(o.file)))
  writeAtomic(o.file, o.contents, o.file === "dist/cli.js" ? 0o755 : undefined);
const keep = new Set([...outputs.map((o) => o.file), "dist/package.json"]);
for (const dir of ["dist", "dist/chunks"]) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isFile() && !keep.has(file)) fs.rmSync(file, { force: true });
  }
}

// Type declarations for library users (`--no-types` skips them: a quicker build while working on the CLI).
if (!process.argv.includes("--no-types"))
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
