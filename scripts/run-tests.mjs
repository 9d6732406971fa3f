// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

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
const filters = process.argv.slice(2);
const files = collect("test").filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(2);
}
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
  stdio: "inherit",
});
process.exit(r.status ?? 1);
