// Builds dist/ with esbuild:
//
//   dist/index.mjs, dist/chunks/*.mjs   the library (ESM, code splitting, every
//                                       npm package left external)
//   dist/cli.js                         the `rt` executable: a small CommonJS loader
//   dist/rt-cli.cjs                     the CLI bundle it runs
//   dist/rt-cli.cache                   V8's code cache for that bundle
//   dist/package.json                   {"type": "commonjs"}, so dist/cli.js is CommonJS
//
// Why the CLI is built this way (see BENCHMARKS.md for the measurements): a short
// command like `rt open small.py:10` must start within 1.5x of `node -e 0`, and on
// Node 20 most of rt's start-up went to the ES module loader (about 10 ms for an
// ESM entry point, plus resolving, reading and linking each of zod's ~40 module
// files) and to compiling the code. So:
//   - the CLI is one CommonJS file (no ESM loader at all) with the pure-JS packages
//     on the start-up path (BUNDLED) inside it; every other package (tree-sitter,
//     database drivers, ripgrep's binary...) stays external and is loaded on demand;
//   - `import { z } from "zod"` is compiled as `import * as z from "zod"` (the same
//     namespace object), which lets esbuild drop the parts of zod rt never uses
//     (the locales alone are 360 KB);
//   - Node built-in modules are loaded on first use, not at start-up;
//   - Node 20 has no module.enableCompileCache (Node 22 does), so dist/cli.js
//     compiles the bundle with vm.Script and V8's code cache, produced here by a
//     warm-up run. When the cache does not fit the running Node (another version
//     or V8 flags), V8 rejects it and the bundle is simply compiled as usual.
//     RT_NO_COMPILE_CACHE=1 disables it.
// Heavy modules are still imported lazily (dynamic import()) by the commands that
// need them, so they cost nothing to the others.
import { build } from "esbuild";
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

/** `import { z } from "zod"` → `import * as z from "zod"`: same object, but tree-shakable. */
const zodNamespace = {
  name: "zod-namespace-import",
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
 */
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
      const keys = Object.keys(require(args.path)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
      const lines = [
        `let m;`,
        `const load = () => m || (m = require(${JSON.stringify(`node:${args.path}`)}));`,
        ...keys.map((k) => `Object.defineProperty(exports, ${JSON.stringify(k)}, { get: () => load()[${JSON.stringify(k)}], enumerable: true });`),
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

/**
 * Tool modules load on first use in the CLI: src/tools/toolModules.ts imports
 * every tool module up front (as tests and the library want); here it becomes a
 * map of functions that `require` each module when first called. esbuild wraps a
 * module reached only that way in a lazy initializer, so `rt open` evaluates
 * open.ts and what it imports, not every tool (and their schemas, the edit
 * engine, the shell check's tables...).
 */
const lazyToolModules = {
  name: "lazy-tool-modules",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]tools[\\/]toolModules\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8");
      const imports = [...text.matchAll(/^import \* as (\w+) from "\.\/(\w+)\.js";$/gm)];
      const listed = [...text.matchAll(/^  (\w+): \(\) => (\w+),$/gm)];
      if (imports.length === 0 || listed.length !== imports.length || listed.some(([, k, v]) => k !== v || !imports.some(([, n]) => n === k))) {
        throw new Error(`${args.path}: expected one "import * as NAME from \"./FILE.js\";" line per module and "  NAME: () => NAME," entries for exactly those names`);
      }
      const entries = imports.map(([, name, file]) => `  ${name}: () => require(${JSON.stringify(`./${file}.ts`)}),`);
      return { contents: `export const toolModules = {\n${entries.join("\n")}\n};\n`, loader: "ts", resolveDir: path.dirname(args.path) };
    });
  },
};

/** Replaces a file in one step, so a test running `rt` meanwhile never sees half of it. */
function writeAtomic(file, data, mode) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, mode ? { mode } : undefined);
  fs.renameSync(tmp, file);
}

// The CLI bundle. It is run by dist/cli.js inside a CommonJS function wrapper.
const cli = await build({
  write: false,
  entryPoints: { "rt-cli": "src/cli.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  plugins: [lazyToolModules, zodNamespace, lazyBuiltins],
  define: { "import.meta.url": "__rt_import_meta_url" },
  logLevel: "warning",
});
{
  // The function wrapper in dist/cli.js cannot start with a #! line, and the
  // code is strict like the ES modules it comes from.
  let text = cli.outputFiles[0].text.replace(/^#!.*\n/, "").replace(/^"use strict";\n/, "");
  let prelude = '"use strict";\nvar __rt_import_meta_url = require("node:url").pathToFileURL(__filename).href;\n';
  // esbuild's __toESM builds a fresh copy of a CommonJS module's exports for each
  // importing file (one copy of `fs` per file that imports it: ~3 ms at start-up).
  // One copy per module is enough, as with real ES modules.
  const helper = "var __toESM = (mod, isNodeMode, target) =>";
  if (text.split(helper).length === 2) {
    text = text.replace(helper, "var __toESMFresh = (mod, isNodeMode, target) =>");
    prelude +=
      `var __toESMCache = new WeakMap();\n` +
      `var __toESM = (mod, isNodeMode) => {\n` +
      `  if (mod === null || (typeof mod !== "object" && typeof mod !== "function")) return __toESMFresh(mod, isNodeMode);\n` +
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
  // keeps; escape those too, so the loader may read the file as latin1.
  text = prelude + text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeAtomic("dist/rt-cli.cjs", text);
}

const LOADER = `#!/usr/bin/env node
// rt's executable (generated by scripts/build.mjs). It runs rt-cli.cjs, compiled
// with V8's code cache from rt-cli.cache when that cache fits this Node.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const file = path.join(__dirname, "rt-cli.cjs");
const cacheFile = path.join(__dirname, "rt-cli.cache");
// esbuild writes ASCII only (other characters are escaped), so latin1 is exact and skips UTF-8 decoding.
const source = fs.readFileSync(file, "latin1");
let cachedData;
if (!process.env.RT_NO_COMPILE_CACHE) {
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
}
const script = new vm.Script("(function (exports, require, module, __filename, __dirname, __rt_import) {" + source + "\\n})", {
  filename: file,
  cachedData,
  importModuleDynamically: (vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER) || ((specifier) => import(specifier)),
});
if (process.env.RT_WRITE_COMPILE_CACHE) {
  // Build step: after a warm-up run, save the code of every function compiled so far.
  process.once("exit", () => {
    const tmp = cacheFile + "." + process.pid + ".tmp";
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
  });
}
const mod = { exports: {} };
script.runInThisContext()(mod.exports, require, mod, file, __dirname, (specifier) => import(specifier));
`;
writeAtomic("dist/cli.js", LOADER, 0o755);

// The code cache: one warm-up run of a typical command in a scratch workspace,
// which compiles what start-up and `open` need; the rest compiles lazily as usual.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "rt-build-"));
try {
  fs.writeFileSync(path.join(scratch, "warm.py"), Array.from({ length: 120 }, (_, i) => `x${i} = ${i}\n`).join(""));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("RT_") && !k.startsWith("RAGIX_")));
  execFileSync(process.execPath, ["dist/cli.js", "--root", scratch, "open", "warm.py:60"], {
    env: { ...env, RT_WRITE_COMPILE_CACHE: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
} catch (e) {
  // The cache only saves time; rt works without it.
  fs.rmSync("dist/rt-cli.cache", { force: true });
  console.warn(`warning: no V8 code cache for dist/rt-cli.cjs: ${String(e.stderr || e.message).trim().split("\n")[0]}`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}

// Type declarations for library users (ES modules, like dist/index.mjs).
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
fs.writeFileSync("dist/types/package.json", `${JSON.stringify({ type: "module" })}\n`);
