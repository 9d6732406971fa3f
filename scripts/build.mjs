// Builds dist/ with esbuild:
//
//   dist/index.mjs, dist/chunks/*.mjs   the library (ESM, code splitting, every
//                                       npm package left external)
//   dist/cli.js                         the `rt` executable: a small CommonJS loader
//   dist/rt-cli.cjs                     the CLI's first file: what reading and searching need
//   dist/rt-cli-rest.cjs                its second: everything else, loaded on first use
//   dist/rt-zod.cjs                     zod, loaded on first use (src/zodOnDemand.ts)
//   dist/NAME.cache                     V8's code cache for each
//   dist/package.json                   {"type": "commonjs"}, so dist/cli.js is CommonJS
//
// Why the CLI is built this way (see BENCHMARKS.md for the measurements): a short
// command like `rt open small.py:10` must start within 1.2x of `node -e 0`, and on
// Node 20 most of rt's start-up went to the ES module loader (about 10 ms for an
// ESM entry point, plus resolving, reading and linking each of zod's ~40 module
// files), to compiling the code and to evaluating zod. So:
//   - the CLI is CommonJS (no ESM loader at all), in two files (see below), with the pure-JS packages
//     on the start-up path (BUNDLED) inside it; every other package (tree-sitter,
//     database drivers, ripgrep's binary...) stays external and is loaded on demand;
//   - `import { z } from "zod"` is compiled as `import * as z from "zod"` (the same
//     namespace object), which lets esbuild drop the parts of zod rt never uses
//     (the locales alone are 360 KB); the first file reaches zod only through
//     src/zodOnDemand.ts, in a third file of its own (see zodOnDemand below);
//   - Node built-in modules are loaded on first use, not at start-up;
//   - Node 20 has no module.enableCompileCache (Node 22 does), so dist/cli.js
//     compiles the bundle with vm.Script and V8's code cache, produced here by a
//     warm-up run. When the cache does not fit the running Node (another version
//     or V8 flags), V8 rejects it and the bundle is simply compiled as usual.
//     RT_NO_COMPILE_CACHE=1 disables it.
// Heavy modules are still imported lazily (dynamic import()) by the commands that
// need them, so they cost nothing to the others.
import { build, transformSync } from "esbuild";
import { execFileSync } from "node:child_process";
import { builtinModules, createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const require = createRequire(import.meta.url);
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));

/** npm packages compiled into the CLI bundle: pure JavaScript, used on the start-up path. */
const BUNDLED = ["zod", "diff"];
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })
  .filter((name) => !BUNDLED.includes(name))
  .flatMap((name) => [name, `${name}/*`]);

// dist/ is not emptied first: tests running in parallel may be using it.
fs.mkdirSync("dist", { recursive: true });
fs.writeFileSync("dist/package.json", `${JSON.stringify({ type: "commonjs" })}\n`);
// Earlier builds wrote ES modules as dist/*.js; under {"type": "commonjs"} they are
// unusable, and this build writes no .js file but dist/cli.js.
for (const name of fs.readdirSync("dist")) if (name.endsWith(".js") && name !== "cli.js") fs.rmSync(path.join("dist", name), { force: true });

// The library, for `import { createWorkspace, callTool } from "rt-agent"`.
await build({
  entryPoints: { index: "src/index.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});

/**
 * The zod members rt's code uses: every `z.NAME` and `zod().NAME` in src/ that
 * zod exports (a tool's schema function names its parameter `z`).
 */
async function zodMembers() {
  const exported = new Set(Object.keys(await import("zod").then((m) => m.z)));
  const used = new Set();
  for (const file of fs.readdirSync("src", { recursive: true })) {
    if (!String(file).endsWith(".ts")) continue;
    const text = fs.readFileSync(path.join("src", String(file)), "utf8");
    for (const m of text.matchAll(/(?<![\w$.])(?:z|zod\(\))\.([A-Za-z_$][\w$]*)/g)) if (exported.has(m[1])) used.add(m[1]);
  }
  return [...used].sort();
}
const ZOD_MEMBERS = await zodMembers();

/**
 * zod in the CLI files:
 *   - `import { z } from "zod"` → `import * as z from "zod"`: same object, but
 *     tree-shakable;
 *   - src/zodOnDemand.ts loads dist/rt-zod.cjs on the first call of zod(): the
 *     zod members rt uses (ZOD_MEMBERS, so the rest of zod is still left out),
 *     in a file of its own, so a command that needs no schema reads none of it;
 *     a member missing from it is an error naming it.
 */
const zodOnDemand = {
  name: "zod-on-demand",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]zodOnDemand\.ts$/ }, () => ({
      contents: `let z;\nexport function zod() {\n  return z || (z = __rt_load("rt-zod").z);\n}\n`,
      loader: "ts",
    }));
  },
};

/** dist/rt-zod.cjs: the zod members rt uses, as one object `z` (a Proxy that names a member left out). */
const zodMembersFile = {
  name: "rt-zod-members",
  setup(b) {
    b.onResolve({ filter: /^rt-zod-members$/ }, () => ({ path: "members", namespace: "rt-zod-members" }));
    b.onLoad({ filter: /.*/, namespace: "rt-zod-members" }, () => ({
      contents:
        `import * as zz from "zod";\n` +
        `const members = {\n${ZOD_MEMBERS.map((m) => `  ${m}: zz.${m},`).join("\n")}\n};\n` +
        `export const z = new Proxy(members, {\n` +
        `  get(target, key) {\n` +
        `    if (typeof key === "string" && !(key in target)) throw new Error(\`zod.\${key} is not in the rt executable: scripts/build.mjs bundles the zod members src/ names as z.NAME or zod().NAME\`);\n` +
        `    return target[key];\n` +
        `  },\n` +
        `});\n`,
      loader: "js",
      resolveDir: REPO_DIR,
    }));
  },
};
const zodImports = {
  name: "zod-imports",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8");
      return { contents: text.replace(/^import \{ z \} from "zod";$/gm, 'import * as z from "zod";'), loader: "ts" };
    });
  },
};

/**
 * Node built-ins load on first use: `import { spawn } from "node:child_process"`
 * becomes a module of getters that require the real one when first touched.
 * Those Node 20 has loaded before it runs a script (PRELOADED) cost nothing to
 * require: their module is an object whose prototype is the real one. Either
 * way it is already shaped as esbuild's __toESM would make it (a default export
 * that is the module), so __toESM returns it as it is (see cliFileText) instead
 * of copying every property. (Another Node that has not preloaded one of them
 * just loads it at start-up.)
 */
const PRELOADED = new Set(["fs", "path", "util", "url", "events", "buffer", "timers"]);
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    const names = new Set(builtinModules);
    b.onResolve({ filter: /^[a-z_/:]+$/ }, (args) => {
      const bare = args.path.replace(/^node:/, "");
      if (!names.has(bare) || args.namespace === "lazy-builtin") return undefined;
      return { path: bare, namespace: "lazy-builtin" };
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const id = JSON.stringify(`node:${args.path}`);
      if (PRELOADED.has(args.path)) {
        return { contents: `const m = require(${id});\nmodule.exports = Object.create(m, { default: { value: m, enumerable: true }, __rtLazyBuiltin: { value: true } });\n`, loader: "js" };
      }
      const keys = Object.keys(require(args.path)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
      const lines = [
        `let m;`,
        `const load = () => m || (m = require(${id}));`,
        // One loop over the names rather than a statement each: less code to compile and cache.
        `for (const k of ${JSON.stringify(keys)}) Object.defineProperty(exports, k, { get: () => load()[k], enumerable: true });`,
        `Object.defineProperty(exports, "default", { value: exports, enumerable: true });`,
        `Object.defineProperty(exports, "__rtLazyBuiltin", { value: true });`,
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

/**
 * The CLI is two files. The first, dist/rt-cli.cjs, holds what reading and
 * searching need: the command line, the workspace, the registry and what
 * FIRST_FILE_ON_DEMAND lists. The second, dist/rt-cli-rest.cjs, holds everything else (the
 * other tools and the edit engine, the agent, the UI, the MCP face...) and is
 * read only by a command that uses it. Start-up cost grows with the bytes V8
 * reads and deserializes (page faults on fresh memory dominate on small
 * machines), so `rt open` and `rt grep` should not pay for the agent.
 *
 * A module lives in exactly one of the two files, so module state (the tool
 * registry, extension providers, caches) is never duplicated: the second file
 * reaches a first-file module through `__rt_core(id)`, a table of the first
 * file's modules; the first reaches a second-file module through
 * `__rt_second(id)`, which loads the second file once. npm packages bundled in
 * both (zod, diff) may exist twice: they are pure, and zod 4 is built for that
 * (its instanceof checks and global registry work across copies).
 *
 * What the first file loads on demand: the modules main.ts imports for the tool
 * commands and `rt call`, and the tools that reading and searching use. Every
 * other module the first file's code loads on demand (an `import()`, or a tool
 * module's lazy `require`) is left to the second file, with what it imports.
 */
const FIRST_FILE_ON_DEMAND = new Set([
  "src/workspace/workspace.ts",
  "src/faces/json/call.ts",
  "src/tools/policy.ts",
  "src/faces/cli/terminal.ts",
  "src/faces/cli/display.ts",
  "src/tools/shared/ripgrep.ts",
  ...["read", "open", "scroll", "find", "grep", "grepFile", "ls"].map((file) => `src/tools/${file}.ts`),
]);
const REPO_DIR = process.cwd();
const moduleId = (file) => path.relative(REPO_DIR, file).split(path.sep).join("/");
const toolModulesFile = path.join("src", "tools", "toolModules.ts");

/** toolModules.ts's imports: [NAME, FILE] per tool module; its shape is checked (see toolModules.ts). */
async function toolModuleImports() {
  const text = await fs.promises.readFile(toolModulesFile, "utf8");
  const imports = [...text.matchAll(/^import \* as (\w+) from "\.\/(\w+)\.js";$/gm)];
  const listed = [...text.matchAll(/^  (\w+): \(\) => (\w+),$/gm)];
  if (imports.length === 0 || listed.length !== imports.length || listed.some(([, k, v]) => k !== v || !imports.some(([, n]) => n === k))) {
    throw new Error(`${toolModulesFile}: expected one "import * as NAME from \"./FILE.js\";" line per module and "  NAME: () => NAME," entries for exactly those names`);
  }
  return imports.map(([, name, file]) => [name, file]);
}
const toolImports = await toolModuleImports();
for (const id of FIRST_FILE_ON_DEMAND) if (!fs.existsSync(id)) throw new Error(`scripts/build.mjs: ${id} does not exist`);

/** A module that stands for another file's module: `module.exports = FN("ID")`. */
function stubs(b, namespace, fn) {
  b.onLoad({ filter: /.*/, namespace }, (args) => ({ contents: `module.exports = ${fn}(${JSON.stringify(args.path)});`, loader: "js" }));
}

/** Relative imports resolved as esbuild would, then `redirect(id)` may send them to another namespace. */
function redirectResolved(b, redirect) {
  b.onResolve({ filter: /^\.\.?\// }, async (args) => {
    if (args.pluginData === "rt-resolving" || args.namespace !== "file") return undefined;
    const r = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: "rt-resolving" });
    if (r.errors.length > 0 || r.external) return undefined;
    const namespace = redirect(moduleId(r.path), args);
    return namespace ? { path: moduleId(r.path), namespace } : r;
  });
}

/**
 * The first file. Its entry fills the table of its modules that the second file
 * uses (`coreIds`), then runs src/cli.ts. Tool modules load on first use: here
 * toolModules.ts becomes a map of functions that `require` each module when first
 * called (esbuild wraps a module reached only that way in a lazy initializer), so
 * `rt open` evaluates open.ts and what it imports, not every tool.
 */
function firstFilePlugin(coreIds) {
  return {
    name: "rt-first-file",
    setup(b) {
      b.onResolve({ filter: /^rt-first-entry$/ }, () => ({ path: "entry", namespace: "rt-first-entry" }));
      b.onLoad({ filter: /.*/, namespace: "rt-first-entry" }, () => ({
        contents: `__rt_coreTable = {\n${coreIds.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(`./${id}`)}),`).join("\n")}\n};\nrequire("./src/cli.ts");\n`,
        loader: "js",
        resolveDir: REPO_DIR,
      }));
      b.onLoad({ filter: /[\\/]src[\\/]tools[\\/]toolModules\.ts$/ }, () => {
        const entries = toolImports.map(([name, file]) => `  ${name}: () => require(${JSON.stringify(`./${file}.ts`)}),`);
        return { contents: `export const toolModules = {\n${entries.join("\n")}\n};\n`, loader: "ts", resolveDir: path.dirname(path.resolve(toolModulesFile)) };
      });
      const onDemand = (kind, importer) => kind === "dynamic-import" || (kind === "require-call" && !importer.startsWith("rt-first-entry"));
      redirectResolved(b, (id, args) => (onDemand(args.kind, args.importer) && !FIRST_FILE_ON_DEMAND.has(id) ? "rt-second" : undefined));
      stubs(b, "rt-second", "__rt_second");
    },
  };
}

/** The second file: its entry is a table of the modules the first one asks for (`secondIds`); first-file modules are reached through __rt_core. */
function secondFilePlugin(firstIds, secondIds) {
  const first = new Set(firstIds);
  return {
    name: "rt-second-file",
    setup(b) {
      b.onResolve({ filter: /^rt-second-entry$/ }, () => ({ path: "entry", namespace: "rt-second-entry" }));
      b.onLoad({ filter: /.*/, namespace: "rt-second-entry" }, () => ({
        contents: `module.exports = {\n${secondIds.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(`./${id}`)}),`).join("\n")}\n};\n`,
        loader: "js",
        resolveDir: REPO_DIR,
      }));
      redirectResolved(b, (id) => (first.has(id) ? "rt-core" : undefined));
      stubs(b, "rt-core", "__rt_core");
    },
  };
}

/** Replaces a file in one step, so a test running `rt` meanwhile never sees half of it. */
function writeAtomic(file, data, mode) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, mode ? { mode } : undefined);
  fs.renameSync(tmp, file);
}

const cliOptions = {
  write: false,
  metafile: true,
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  define: { "import.meta.url": "__rt_meta.url", "import.meta.dirname": "__dirname" },
  logLevel: "warning",
};
const buildFirst = (coreIds) => build({ ...cliOptions, entryPoints: { "rt-cli": "rt-first-entry" }, plugins: [firstFilePlugin(coreIds), zodOnDemand, zodImports, lazyBuiltins] });
const buildSecond = (firstIds, secondIds) => build({ ...cliOptions, entryPoints: { "rt-cli-rest": "rt-second-entry" }, plugins: [secondFilePlugin(firstIds, secondIds), zodOnDemand, zodImports, lazyBuiltins] });
/** The src/ modules in a build's output; with `namespace`, those of that namespace (the stubs). */
function modulesIn(result, namespace) {
  const inputs = Object.keys(Object.values(result.metafile.outputs)[0].inputs);
  if (namespace) return inputs.filter((k) => k.startsWith(`${namespace}:`)).map((k) => k.slice(namespace.length + 1)).sort();
  return inputs.filter((k) => k.startsWith("src/")).sort();
}

// The two builds depend on each other: the second stubs every module the first
// holds, and the first's table lists the modules the second uses, which keeps
// whole modules (and what they import) in the first. Repeat until that is stable.
let first = await buildFirst([]);
let second;
for (let round = 0; ; round++) {
  const firstIds = modulesIn(first);
  second = await buildSecond(firstIds, modulesIn(first, "rt-second"));
  first = await buildFirst(modulesIn(second, "rt-core"));
  if (modulesIn(first).join("\n") === firstIds.join("\n")) break;
  if (round === 5) throw new Error("scripts/build.mjs: the split of the CLI into two files does not settle");
}
// RT_BUILD_META=FILE: both builds' esbuild metafiles, to see what each file holds and why.
if (process.env.RT_BUILD_META) fs.writeFileSync(process.env.RT_BUILD_META, JSON.stringify({ first: first.metafile, second: second.metafile }));
const duplicated = modulesIn(first).filter((id) => modulesIn(second).includes(id));
if (duplicated.length > 0) throw new Error(`scripts/build.mjs: modules in both CLI files: ${duplicated.join(", ")}`);

/** How each CLI file begins: the function dist/cli.js calls with what a CommonJS module gets, and rt's own links. */
const CLI_FILE_WRAPPER = "(function (exports, require, module, __filename, __dirname, __rt_import, __rt_load, __rt_core) {";

/** The text of a CLI file as dist/cli.js runs it (inside a function wrapper, read as latin1). */
function cliFileText(result, prelude) {
  // The function wrapper cannot start with a #! line, and the code is strict
  // like the ES modules it comes from.
  let text = result.outputFiles[0].text.replace(/^#!.*\n/, "").replace(/^"use strict";\n/, "");
  // import.meta.url (define: __rt_meta.url), made when first read: few commands need it.
  prelude = `"use strict";\nvar __rt_meta = { get url() { const url = require("node:url").pathToFileURL(__filename).href; Object.defineProperty(this, "url", { value: url }); return url; } };\n${prelude}`;
  // esbuild's __toESM builds a fresh copy of a CommonJS module's exports for each
  // importing file (one copy of `fs` per file that imports it: ~3 ms at start-up).
  // One copy per module is enough, as with real ES modules; a lazy built-in
  // (lazyBuiltins) needs none.
  const helper = "var __toESM = (mod, isNodeMode, target) =>";
  if (text.split(helper).length === 2) {
    text = text.replace(helper, "var __toESMFresh = (mod, isNodeMode, target) =>");
    prelude +=
      `var __toESMCache = new WeakMap();\n` +
      `var __toESM = (mod, isNodeMode) => {\n` +
      `  if (mod === null || (typeof mod !== "object" && typeof mod !== "function")) return __toESMFresh(mod, isNodeMode);\n` +
      `  if (mod.__rtLazyBuiltin === true) return mod;\n` +
      `  let pair = __toESMCache.get(mod);\n` +
      `  if (!pair) __toESMCache.set(mod, (pair = []));\n` +
      `  const k = isNodeMode ? 1 : 0;\n` +
      `  return pair[k] || (pair[k] = __toESMFresh(mod, isNodeMode));\n` +
      `};\n`;
  }
  // Dynamic import() of external packages (tree-sitter, database drivers...) is
  // routed to the loader's own import(): V8 drops a vm.Script's dynamic-import
  // callback when the script comes from the code cache ("A dynamic import
  // callback was not specified"), but dist/cli.js is a real CommonJS module.
  text = text.replace(/(?<![\w$.])import\(/g, "__rt_import(");
  // esbuild escapes every non-ASCII character in code, but not in the comments it
  // keeps; escape those too, so the loader may read the file as latin1. The file
  // is the function expression dist/cli.js calls, whole: compiling it as read
  // spares a copy of the source (a fresh string, and its garbage collection).
  const whole = `${CLI_FILE_WRAPPER}${prelude}${text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n})`;
  // Without comments and indentation (a quarter of the text; names are kept, so
  // a stack trace still names its functions, at line 1). Every command reads
  // the first file whole, and the loader holds it twice (its bytes and the
  // string): on the machine rt's benchmarks run on, each fresh 4 KB page costs
  // about 12 microseconds, and the first file was 4 ms of \`rt open\`.
  return transformSync(whole, { minifyWhitespace: true, loader: "js", charset: "ascii", logLevel: "warning" }).code;
}
// The last build's code caches go first: V8 accepts a cache made for any source
// of the same length, and would run the old code of each function it holds (in
// a warm-up run below, or an rt started meanwhile).
for (const name of ["rt-cli", "rt-cli.grep", "rt-cli-rest", "rt-zod"]) fs.rmSync(`dist/${name}.cache`, { force: true });
writeAtomic(
  "dist/rt-cli.cjs",
  cliFileText(
    first,
    `var __rt_coreTable;\nvar __rt_rest;\n` +
      `var __rt_second = (id) => (__rt_rest || (__rt_rest = __rt_load("rt-cli-rest", (core) => __rt_coreTable[core]())))[id]();\n`,
  ),
);
writeAtomic("dist/rt-cli-rest.cjs", cliFileText(second, ""));
const zodFile = await build({ ...cliOptions, entryPoints: { "rt-zod": "rt-zod-members" }, plugins: [zodMembersFile, lazyBuiltins] });
writeAtomic("dist/rt-zod.cjs", cliFileText(zodFile, ""));

const LOADER = `#!/usr/bin/env node
// rt's executable (generated by scripts/build.mjs). It runs rt-cli.cjs, which
// loads rt-cli-rest.cjs and rt-zod.cjs when a command needs them; each is
// compiled with V8's code cache (NAME.cache) when that cache fits this Node.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
// \`rt grep\` has a code cache of its own, warmed by grep alone (NAME.grep.cache);
// every other command uses the one warmed by \`rt open\`. V8 deserializes every
// function a cache holds at start-up, run or not: with grep's functions in its
// cache, \`rt open\` took 1-4 ms longer.
const OWN_CACHE = ["grep"];
/** The first \`size\` bytes of the file open on \`fd\`, read into \`buf\` (closed after). */
function readAll(fd, buf, size) {
  try {
    let got = 0;
    for (let n = 1; got < size && n > 0; got += n) n = fs.readSync(fd, buf, got, size - got, got);
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}
function load(name, core) {
  const file = path.join(__dirname, name + ".cjs");
  const own = name === "rt-cli" && OWN_CACHE.includes(process.argv[2]) ? "." + process.argv[2] : "";
  const cacheFile = path.join(__dirname, name + own + ".cache");
  const fd = fs.openSync(file, "r");
  let cacheFd = -1;
  if (!process.env.RT_NO_COMPILE_CACHE) {
    try {
      cacheFd = fs.openSync(cacheFile, "r");
    } catch {
      cacheFd = -1;
    }
  }
  const size = fs.fstatSync(fd).size;
  const cacheSize = cacheFd >= 0 ? fs.fstatSync(cacheFd).size : 0;
  // One buffer for the file and then its code cache (the source is copied out
  // of it first): fresh memory costs a page fault for every 4 KB, about 12
  // microseconds each where rt's benchmarks run.
  const buf = Buffer.allocUnsafeSlow(Math.max(size, cacheSize));
  // esbuild writes ASCII only (other characters are escaped), so latin1 is exact and skips UTF-8 decoding.
  const source = readAll(fd, buf, size).toString("latin1");
  const cachedData = cacheFd >= 0 ? readAll(cacheFd, buf, cacheSize) : undefined;
  // The file is one function expression (see CLI_FILE_WRAPPER in scripts/build.mjs).
  const script = new vm.Script(source, {
    filename: file,
    cachedData,
    importModuleDynamically: (vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER) || ((specifier) => import(specifier)),
  });
  if (process.env.RT_WRITE_COMPILE_CACHE === name) {
    // Build step: after a warm-up run, save the code of every function compiled so far.
    process.once("exit", () => {
      const tmp = cacheFile + "." + process.pid + ".tmp";
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, cacheFile);
    });
  }
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, require, mod, file, __dirname, (specifier) => import(specifier), load, core);
  return mod.exports;
}
load("rt-cli");
`;
writeAtomic("dist/cli.js", LOADER, 0o755);

// The code caches: warm-up runs of typical commands in a scratch workspace
// (`open` for the first file, and `grep` for its own cache of it; an edit for
// the second, a call through a schema for zod), which compile what start-up
// and those commands need; the rest compiles lazily as usual. A run writes the
// cache the loader would read for it (the last build's were deleted before its
// files were replaced).
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "rt-build-"));
try {
  fs.writeFileSync(path.join(scratch, "warm.py"), Array.from({ length: 120 }, (_, i) => `x${i} = ${i}\n`).join(""));
  // grep's two steps (ripgrep counts, rt reads the files shown) need more than one file with a match.
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(scratch, `warm${i}.ts`), `const a = 1;\n// TODO: warm ${i}\n`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("RT_") && !k.startsWith("RAGIX_")));
  // [file, the cache the run writes (the loader's choice for that command), command, standard input,
  //  whether the command runs once before (its cache then holds what a repeated run compiles)]
  const warmUps = [
    ["rt-cli", "rt-cli", ["open", "warm.py:60"], "", false],
    // A repeated grep: the files it shows already have their records (every grep in a repository
    // but the first). Writing them compiles the state writer, which a cache would otherwise
    // deserialize, for nothing, at every later grep's start.
    ["rt-cli", "rt-cli.grep", ["grep", "TODO: warm"], "", true],
    ["rt-cli-rest", "rt-cli-rest", ["edit", "warm.py", "60", "60"], "x59 = 59\n", false],
    // An argument alias goes through the schema.
    ["rt-zod", "rt-zod", ["call", "open", "--args", '{"file_path": "warm.py", "line": 60}'], "", false],
  ];
  for (const [name, cache, args, input, repeated] of warmUps) {
    try {
      // The command first, as users type it (the loader picks a command's own cache by it).
      const run = (extra) => execFileSync(process.execPath, [path.resolve("dist/cli.js"), ...args], { cwd: scratch, env: { ...env, RT_ROOT: scratch, ...extra }, input, stdio: ["pipe", "ignore", "pipe"] });
      if (repeated) run({});
      run({ RT_WRITE_COMPILE_CACHE: name });
    } catch (e) {
      // The cache only saves time; rt works without it.
      fs.rmSync(`dist/${cache}.cache`, { force: true });
      console.warn(`warning: no V8 code cache dist/${cache}.cache: ${String(e.stderr || e.message).trim().split("\n")[0]}`);
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}

// Type declarations for library users (ES modules, like dist/index.mjs).
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
fs.writeFileSync("dist/types/package.json", `${JSON.stringify({ type: "module" })}\n`);
