// A fast first sandboxed command (issue 9), without trusting what it must not:
//   - the probe's answer is kept per user on disk, and believed only from a
//     private file outside the workspace whose key matches this bwrap, kernel,
//     boot and sandbox; a cache that bwrap contradicts is forgotten;
//   - the shell parser no longer leaves seconds of background compilation that
//     Node waits for (the 470 ms of a first command, and `rt bash`'s exit).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { REPO, tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import {
  featuresFromExecutable,
  featuresFromHelp,
  findBwrap,
  probeCacheFile,
  probeSandbox,
  resetSandboxProbe,
} from "../../src/shell/sandbox.ts";

const realBwrap = findBwrap(process.env.RT_BWRAP, undefined).bwrap!;
const savedCacheHome = process.env.XDG_CACHE_HOME;

/** Points the probe cache at a fresh directory (process.env is where rt reads it). */
function freshCacheHome(): string {
  const dir = tempTree({}, "rt-cache-");
  process.env.XDG_CACHE_HOME = dir;
  resetSandboxProbe();
  return dir;
}

afterEach(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
  resetSandboxProbe();
});

test("the probe's answer is written once, privately, and believed by the next process", async () => {
  const home = freshCacheHome();
  const first = await probeSandbox(process.env, tempTree());
  assert.equal(first.available, true);
  assert.equal(first.available && first.fromCache, false);
  const file = path.join(home, "rt", "sandbox-probe.json");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  resetSandboxProbe(); // as a new process would start
  const second = await probeSandbox(process.env, tempTree());
  assert.equal(second.available && second.fromCache, true);
  assert.deepEqual({ ...second, fromCache: false }, first);
});

test("a cache inside the workspace is never read or written (a repository could plant one)", async () => {
  const root = tempTree();
  process.env.XDG_CACHE_HOME = path.join(root, ".cache");
  resetSandboxProbe();
  assert.equal(probeCacheFile(root), undefined);
  // Through a symbolic link outside the root that leads into it, too.
  const outside = tempTree();
  fs.symlinkSync(root, path.join(outside, "link"));
  assert.equal(probeCacheFile(root, { XDG_CACHE_HOME: path.join(outside, "link", ".cache") }), undefined);
  const p = await probeSandbox(process.env, root);
  assert.equal(p.available && p.fromCache, false);
  assert.equal(fs.existsSync(path.join(root, ".cache")), false);
  // HOME as the workspace (rt run in ~): ~/.cache is inside it.
  assert.equal(probeCacheFile(root, { HOME: root }), undefined);
  assert.equal(probeCacheFile(root, { HOME: outside }), path.join(outside, ".cache", "rt", "sandbox-probe.json"));
});

test("a cache file that is not private, is a symbolic link, or does not match is ignored (and replaced)", async () => {
  const home = freshCacheHome();
  await probeSandbox(process.env, tempTree());
  const file = path.join(home, "rt", "sandbox-probe.json");
  const good = fs.readFileSync(file, "utf8");
  const cases: Array<[string, () => void]> = [
    ["group- and world-writable", () => fs.chmodSync(file, 0o666)],
    ["in a world-writable directory", () => fs.chmodSync(path.dirname(file), 0o777)],
    [
      "a symbolic link to a good copy",
      () => {
        const copy = path.join(tempTree(), "copy.json");
        fs.writeFileSync(copy, good, { mode: 0o600 });
        fs.rmSync(file);
        fs.symlinkSync(copy, file);
      },
    ],
    [
      "for another bwrap",
      () => fs.writeFileSync(file, good.replace(JSON.stringify(realBwrap).slice(1, -1), "/opt/other/bwrap")),
    ],
    [
      "with a strategy rt does not know",
      () => fs.writeFileSync(file, good.replace(/"strategy":"[a-z]+"/, '"strategy":"none"')),
    ],
    [
      "with features that are not booleans",
      () => fs.writeFileSync(file, good.replace(/"disableUserns":(true|false)/, '"disableUserns":"no"')),
    ],
    ["not JSON", () => fs.writeFileSync(file, "{")],
  ];
  for (const [what, spoil] of cases) {
    fs.chmodSync(path.dirname(file), 0o700);
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, good, { mode: 0o600 });
    spoil();
    resetSandboxProbe();
    const p = await probeSandbox(process.env, tempTree());
    assert.equal(p.available, true, what);
    assert.equal(p.available && p.fromCache, false, `${what}: believed`);
  }
  // The good file itself is believed (so the cases above fail for the reason they name).
  fs.chmodSync(path.dirname(file), 0o700);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, good, { mode: 0o600 });
  resetSandboxProbe();
  const p = await probeSandbox(process.env, tempTree());
  assert.equal(p.available && p.fromCache, true);
});

test("when bwrap refuses to start with a cached answer, the cache is forgotten and the next command is refused with the probe's reason; nothing runs unsandboxed", async () => {
  const home = freshCacheHome();
  const bin = tempTree({}, "rt-fake-bwrap-");
  const flag = path.join(bin, "broken");
  const fake = path.join(bin, "bwrap");
  // A bwrap that works until user namespaces "get disabled" (the flag file appears).
  fs.writeFileSync(
    fake,
    `#!/bin/sh\nif [ -e '${flag}' ]; then echo 'bwrap: No permissions to create new namespace' >&2; exit 1; fi\nexec '${realBwrap}' "$@"\n`,
    { mode: 0o755 },
  );
  const root = tempTree({ "f.txt": "x\n" });
  const marker = path.join(tempTree(), "ran");
  const ws = createWorkspace({ root, profile: "safe-read-only", env: { ...process.env, RT_BWRAP: fake } });
  const ok = await callTool(ws, "bash", { command: "cat /proc/1/comm" });
  assert.equal(ok.success, true, ok.error);
  assert.equal(String(ok.stdout).trim(), "bwrap");
  const file = path.join(home, "rt", "sandbox-probe.json");
  assert.ok(fs.existsSync(file));

  fs.writeFileSync(flag, "");
  resetSandboxProbe(); // a new process: the answer comes from the cache
  const first = await callTool(ws, "bash", { command: `echo ran > ${marker}` });
  assert.equal(first.success, false);
  assert.match(String(first.stderr), /bwrap: No permissions/);
  assert.equal(fs.existsSync(file), false, "the cache was not forgotten");
  const next = await callTool(ws, "bash", { command: `echo ran > ${marker}` });
  assert.equal(next.error_type, "denied");
  assert.equal(next.sandbox_unavailable, true);
  assert.match(next.error ?? "", /cannot create the namespaces/);
  assert.equal(fs.existsSync(marker), false);
});

test("bwrap's features read from its executable are what its --help says; a wrong guess is corrected by asking it", async () => {
  // The oracle is bwrap itself.
  assert.deepEqual(featuresFromExecutable(realBwrap), await featuresFromHelp(realBwrap));
  assert.equal(featuresFromExecutable(path.join(tempTree({ x: "not bwrap\n" }), "x")), undefined);
  assert.equal(featuresFromExecutable(tempTree()), undefined, "a directory");

  // A build whose executable carries the help text of an option it then refuses (as a patched build might).
  freshCacheHome();
  const bin = tempTree({}, "rt-fake-bwrap-");
  const fake = path.join(bin, "bwrap");
  fs.writeFileSync(
    fake,
    [
      "#!/bin/sh",
      ": <<'HELP'", // inert text, as in a binary's string table
      "    --disable-userns ",
      "    --size BYTES ",
      "HELP",
      `if [ "$1" = --help ]; then '${realBwrap}' --help | grep -v -- --disable-userns; exit 0; fi`,
      'for a in "$@"; do if [ "$a" = --disable-userns ]; then echo "bwrap: Unknown option --disable-userns" >&2; exit 1; fi; done',
      `exec '${realBwrap}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  assert.deepEqual(featuresFromExecutable(fake), { disableUserns: true, size: true }, "the fake carries the text");
  const p = await probeSandbox({ ...process.env, RT_BWRAP: fake }, tempTree());
  assert.equal(p.available, true, p.available ? "" : p.reason);
  assert.deepEqual(p.available && p.features, { disableUserns: false, size: true });
});

/** CPU time (user + system, all threads, up to exit) of a fresh Node process running `source` (TypeScript, through tsx). */
function cpuMs(source: string): number {
  const script = `${source}\nprocess.on("exit", () => { const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000)); });`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

test("loading the shell parser and parsing a command leaves no optimizing compilation for Node to wait for", () => {
  // The control: the same grammar and parse without rt's tiering budget. V8 optimizes the
  // lexer on a background thread, and Node waits for it before exiting.
  const parseWithoutBudget = `
    const { loadLanguage } = await import("./src/parsers/treeSitter.ts");
    const { Parser } = await import("web-tree-sitter");
    const language = await loadLanguage("bash");
    const p = new Parser(); p.setLanguage(language); p.parse("git log --oneline | head -5 && ls > /dev/null");`;
  const parseWithRt = `
    const { loadBashParser } = await import("./src/shell/parser.ts");
    (await loadBashParser())("git log --oneline | head -5 && ls > /dev/null");`;
  const control = Math.min(cpuMs(parseWithoutBudget), cpuMs(parseWithoutBudget));
  const fixed = Math.max(cpuMs(parseWithRt), cpuMs(parseWithRt));
  assert.ok(
    control - fixed > 150,
    `CPU time: ${fixed.toFixed(0)} ms with rt's parser, ${control.toFixed(0)} ms without the budget`,
  );
});
