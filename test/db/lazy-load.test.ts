// Database clients are loaded only by the SQL tools, through import():
// nothing that `rt` or the library loads at start-up imports them statically.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { CLI, REPO, cliBundleText, staticGraph } from "../helpers.ts";

// libpg-query is PostgreSQL's parser (WebAssembly, ~50 ms to load): only a PostgreSQL statement's check loads it.
const CLIENTS = ["pg", "pg-cursor", "better-sqlite3", "oracledb", "vertica-nodejs", "libpg-query"];

test("rt's start-up and the library entry point do not load any database client", () => {
  // A client rt loaded at start-up would be a static import reachable from dist/cli.js; the SQL tools use import().
  const cli = cliBundleText();
  const start = staticGraph(CLI).packages;
  for (const c of CLIENTS) assert.ok(!start.has(c), `dist/cli.js imports ${c} at start-up`);
  for (const c of ["pg", "pg-cursor", "oracledb", "vertica-nodejs", "libpg-query"])
    assert.ok(cli.includes(`import("${c}")`), `the CLI loads ${c} on demand`);
  const { packages } = staticGraph(path.join(REPO, "dist", "index.js"));
  for (const c of CLIENTS) assert.ok(!packages.has(c), `dist/index.js loads ${c} at start-up`);
});

test("at run time, loading the registry and its SQL tools loads no database client", () => {
  const script = `
    const { createRequire } = await import("node:module");
    const { TOOLS } = await import(${JSON.stringify(path.join(REPO, "dist", "index.js"))});
    const require = createRequire(${JSON.stringify(path.join(REPO, "package.json"))});
    const loaded = () => Object.keys(require.cache).filter((k) => /node_modules\\/(pg|pg-cursor|better-sqlite3|oracledb|vertica-nodejs|libpg-query)\\//.test(k)).map((k) => k.split("node_modules/")[1].split("/")[0]);
    console.log(JSON.stringify({ tools: TOOLS.map((t) => t.name).filter((n) => n.startsWith("sql_")), loaded: [...new Set(loaded())] }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.tools, ["sql_query", "sql_tables", "sql_describe"]);
  assert.deepEqual(out.loaded, []);
});
