// write_output: new files only, under the output directory, never sensitive
// names, parents created, allowed in safe-read-only.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree, treeHash, rtCall } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

function workspace(profile: "dev" | "safe-read-only" = "safe-read-only", outDir?: string) {
  const root = tempTree({ "src/a.ts": "export {};\n" });
  return { root, ws: createWorkspace({ root, profile, outDir }) };
}

test("creates a new file under .rt/out/, with its parents, in safe-read-only", async () => {
  const { root, ws } = workspace();
  const before = treeHash(root);
  const r = await callTool(ws, "write_output", { path: "reports/2024/disk.md", content: "# Disk\n\nall good\n" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.path, ".rt/out/reports/2024/disk.md");
  assert.match(r.output, /created \.rt\/out\/reports\/2024\/disk\.md \(3 lines, /);
  assert.equal(fs.readFileSync(path.join(root, ".rt/out/reports/2024/disk.md"), "utf8"), "# Disk\n\nall good\n");
  assert.equal(fs.readFileSync(path.join(root, ".rt/.gitignore"), "utf8"), "*\n", ".rt/ ignores itself");
  assert.equal(treeHash(root), before, "nothing outside .rt/ changed");
});

test("refuses to overwrite, whatever the profile", async () => {
  for (const profile of ["dev", "safe-read-only"] as const) {
    const { root, ws } = workspace(profile);
    assert.equal((await callTool(ws, "write_output", { path: "r.md", content: "one" })).success, true);
    const again = await callTool(ws, "write_output", { path: "r.md", content: "two" });
    assert.equal(again.success, false);
    assert.match(again.error ?? "", /already exists; write_output never overwrites/);
    assert.equal(fs.readFileSync(path.join(root, ".rt/out/r.md"), "utf8"), "one");
  }
});

test("refuses sensitive names and paths leading out of the output directory", async () => {
  const { root, ws } = workspace();
  const cases: Array<[string, RegExp]> = [
    [".bashrc", /shell start-up, credential or configuration file/],
    ["home/.profile", /start-up/],
    [".ssh/authorized_keys", /\.ssh\/ holds configuration/],
    ["x/.git/config", /\.git\/ holds/],
    [".git", /configuration or repository directory/],
    ["deploy/.env", /configuration file/],
    ["keys/id_ed25519", /credential/],
    [".github/workflows/ci.yml", /\.github\//],
    ["../../src/a.ts", /outside the output directory/],
    ["/etc/passwd", /outside the output directory/],
    [path.join(root, "src/new.ts"), /outside the output directory/],
    [".", /outside the output directory/],
  ];
  for (const [p, why] of cases) {
    const r = await callTool(ws, "write_output", { path: p, content: "x" });
    assert.equal(r.success, false, p);
    assert.match(r.error ?? "", why, p);
  }
  assert.equal(fs.readFileSync(path.join(root, "src/a.ts"), "utf8"), "export {};\n");
});

test("a symbolic link inside the output directory cannot lead out of it", async () => {
  const { root, ws } = workspace();
  const outside = tempTree();
  fs.mkdirSync(path.join(root, ".rt/out"), { recursive: true });
  fs.symlinkSync(outside, path.join(root, ".rt/out/escape"));
  fs.symlinkSync(path.join(outside, "dangling"), path.join(root, ".rt/out/dangling.md"));
  const r = await callTool(ws, "write_output", { path: "escape/x.md", content: "x" });
  assert.match(r.error ?? "", /symbolic link leads outside/);
  const d = await callTool(ws, "write_output", { path: "dangling.md", content: "x" });
  assert.match(d.error ?? "", /already exists/);
  // A refused call creates nothing there either: not even the parent directories it asked for.
  const deep = await callTool(ws, "write_output", { path: "escape/new/sub/x.md", content: "x" });
  assert.match(deep.error ?? "", /symbolic link leads outside/);
  assert.deepEqual(fs.readdirSync(outside), []);
});

test("an output directory that is a symbolic link is judged by where it leads (--out and a .rt/out shipped in a repository)", async () => {
  const home = tempTree({ ".ssh/known": "" });
  const shm = fs.existsSync("/dev/shm") ? fs.mkdtempSync("/dev/shm/rt-out-") : undefined;
  try {
    const { root, ws } = workspace();
    fs.symlinkSync(path.join(home, ".ssh"), path.join(root, "notes"));
    const viaOut = createWorkspace({ root, profile: "safe-read-only", outDir: "notes" });
    const r = await callTool(viaOut, "write_output", { path: "rc", content: "x" });
    assert.equal(r.success, false);
    assert.match(r.error ?? "", /inside \.ssh\/.*symbolic link/);
    if (shm) {
      fs.symlinkSync(shm, path.join(root, "shm"));
      const sys = await callTool(createWorkspace({ root, profile: "safe-read-only", outDir: "shm" }), "write_output", {
        path: "a.md",
        content: "x",
      });
      assert.match(sys.error ?? "", /system location/);
      assert.deepEqual(fs.readdirSync(shm), []);
    }
    // The default .rt/out as a link out of the workspace, or into its .git/.
    fs.mkdirSync(path.join(root, ".rt"), { recursive: true });
    fs.symlinkSync(path.join(home, ".ssh"), path.join(root, ".rt/out"));
    const d = await callTool(ws, "write_output", { path: "rc", content: "x" });
    assert.match(d.error ?? "", /symbolic link leading out of the workspace/);
    fs.unlinkSync(path.join(root, ".rt/out"));
    fs.mkdirSync(path.join(root, ".git/hooks"), { recursive: true });
    fs.symlinkSync("../.git/hooks", path.join(root, ".rt/out"));
    const g = await callTool(ws, "write_output", { path: "pre-commit", content: "x" });
    assert.match(g.error ?? "", /symbolic link into \.git\//);
    assert.deepEqual(fs.readdirSync(path.join(root, ".git/hooks")), []);
    assert.deepEqual(fs.readdirSync(path.join(home, ".ssh")), ["known"]);
  } finally {
    if (shm) fs.rmSync(shm, { recursive: true, force: true });
  }
});

test("sensitive names are matched without regard to case, and tools' start-up files are refused", async () => {
  const { ws } = workspace();
  for (const p of [
    ".GIT/config",
    "x/.SSH/rc",
    ".BashRC",
    ".gdbinit",
    ".psqlrc",
    ".pam_environment",
    ".cargo/config.toml",
  ]) {
    const r = await callTool(ws, "write_output", { path: p, content: "x" });
    assert.equal(r.success, false, p);
    assert.match(r.error ?? "", /refused/, p);
  }
});

test("--out DIR: files go there (relative to the root when relative); system and secret directories are refused", async () => {
  const out = tempTree();
  const { ws } = workspace("safe-read-only", out);
  const r = await callTool(ws, "write_output", { path: "findings.txt", content: "ok\n" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.path, path.join(out, "findings.txt"));
  assert.equal(fs.readFileSync(path.join(out, "findings.txt"), "utf8"), "ok\n");

  const { root, ws: rel } = workspace("safe-read-only", "reports");
  assert.equal((await callTool(rel, "write_output", { path: "a.md", content: "a" })).path, "reports/a.md");
  assert.equal(fs.existsSync(path.join(root, "reports/a.md")), true);

  for (const dir of ["/etc/rt-out", "/usr/share/rt", path.join(out, ".ssh")]) {
    const { ws: bad } = workspace("safe-read-only", dir);
    const b = await callTool(bad, "write_output", { path: "a.md", content: "a" });
    assert.equal(b.success, false, dir);
    assert.match(b.error ?? "", /system location|credentials/, dir);
  }
});

test("content over the limit is refused", async () => {
  const { ws } = workspace();
  const r = await callTool(ws, "write_output", { path: "big.txt", content: "x".repeat(11 * 1024 * 1024) });
  assert.match(r.error ?? "", /at most/);
});

test("rt --out DIR call write_output: the CLI passes the directory (relative to where rt runs)", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const cwd = tempTree();
  const r = await rtCall("write_output", { path: "n.md", content: "note\n" }, { cwd, env: { RT_ROOT: root } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(root, ".rt/out/n.md"), "utf8"), "note\n");
  const { rt } = await import("../helpers.ts");
  const o = await rt(
    [
      "--out",
      "found",
      "--profile",
      "safe-read-only",
      "call",
      "write_output",
      "--args",
      JSON.stringify({ path: "m.md", content: "m\n" }),
    ],
    { cwd, env: { RT_ROOT: root } },
  );
  assert.equal(o.code, 0, o.stderr);
  assert.equal(fs.readFileSync(path.join(cwd, "found/m.md"), "utf8"), "m\n");
});
