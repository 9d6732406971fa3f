// Does having custom tools slow `rt open`? (tool definitions load
// lazily, only for the faces that list or call every tool.) Times `rt open`
// in a trusted project with 0 and with 50 tool definitions, interleaved, and
// `rt tools` (which does read them) for scale.
// Usage: node scripts/build.mjs && node bench/custom-tools.mjs [--rounds N]
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const CLI = path.resolve("dist/cli.js");
const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 20;
const config = fs.mkdtempSync(path.join(os.tmpdir(), "rt-bench-config-"));
const env = { ...process.env, XDG_CONFIG_HOME: config, HOME: config };
function project(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rt-bench-tools${n}-`));
  fs.writeFileSync(path.join(dir, "small.txt"), Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
  fs.mkdirSync(path.join(dir, ".rt", "tools"), { recursive: true });
  for (let i = 0; i < n; i++) {
    fs.writeFileSync(
      path.join(dir, ".rt", "tools", `t${i}.yaml`),
      `name: t${i}\ndescription: tool ${i}\nparameters: {type: object, properties: {p: {type: string}}}\ncommand: ["true"]\nread_only: true\n`,
    );
  }
  execFileSync(process.execPath, [CLI, "--root", dir, "trust"], { env });
  return dir;
}
const dirs = { 0: project(0), 50: project(50) };
const times = { open0: [], open50: [], tools50: [] };
const time = (args) => {
  const t = process.hrtime.bigint();
  execFileSync(process.execPath, [CLI, ...args], { env, stdio: "ignore" });
  return Number(process.hrtime.bigint() - t) / 1e6;
};
for (let r = 0; r < rounds; r++) {
  times.open0.push(time(["--root", dirs[0], "open", "small.txt:10"]));
  times.open50.push(time(["--root", dirs[50], "open", "small.txt:10"]));
  times.tools50.push(time(["--root", dirs[50], "tools"]));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [k, v] of Object.entries(times))
  console.log(`${k.padEnd(8)} median ${median(v).toFixed(1)} ms over ${v.length} runs`);
console.log(`rt open with 50 tools / without: ${(median(times.open50) / median(times.open0)).toFixed(3)}`);
