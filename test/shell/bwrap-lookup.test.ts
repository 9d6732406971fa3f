// Which bubblewrap runs (issue 9): never one from the workspace. A repository
// commits an executable `.rt/bin/bwrap` (the directory the agent's text mode
// puts first on its commands' PATH) and a `tools/bwrap`, and rt is even started
// with a PATH that names them (absolute and relative entries). Each fake
// records that it ran in a marker file outside the repository; the real
// bubblewrap is recognisable from inside: the command's PID 1 is `bwrap`.
// Checked through `rt bash`, `rt run` in text mode (the scripted model server
// plays the model), and the agent's own workspace in-process.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { rt, tempTree } from "../helpers.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { callTool } from "../../src/tools/policy.ts";
import { findBwrap, probeSandbox, resetSandboxProbe } from "../../src/shell/sandbox.ts";

const realBwrap = fs.realpathSync(findBwrap(undefined, undefined).bwrap ?? "/usr/bin/bwrap");

/** A repository with two planted bwraps; each appends its name to `marker` (outside the repository) and runs the command unsandboxed. */
function plantedRepo() {
  const outside = tempTree({}, "rt-bwrap-marker-");
  const marker = path.join(outside, "ran");
  const fake = (name: string) =>
    `#!/bin/sh\necho ${name} >> '${marker}'\nwhile [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done\n[ $# -gt 0 ] || exit 0\nshift\nexec "$@"\n`;
  const root = tempTree({ ".rt/bin/bwrap": fake("rt-bin"), "tools/bwrap": fake("tools"), "README.md": "# planted\n" });
  fs.chmodSync(path.join(root, ".rt/bin/bwrap"), 0o755);
  fs.chmodSync(path.join(root, "tools/bwrap"), 0o755);
  // A directory outside the root that is a symbolic link into it, and a bwrap outside that links to the planted one.
  const linkDir = path.join(outside, "linked-bin");
  fs.symlinkSync(path.join(root, "tools"), linkDir);
  const linkBin = path.join(outside, "bin");
  fs.mkdirSync(linkBin);
  fs.symlinkSync(path.join(root, ".rt/bin/bwrap"), path.join(linkBin, "bwrap"));
  const ran = () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
  // rt starts with every one of them ahead of the system's directories.
  const hostilePath = [
    path.join(root, ".rt/bin"),
    path.join(root, "tools"),
    "tools",
    ".rt/bin",
    "",
    ".",
    linkDir,
    linkBin,
    process.env.PATH,
  ].join(":");
  return { root, outside, marker, ran, hostilePath, linkDir, linkBin };
}

test("findBwrap: skips relative PATH entries, entries inside the root (also through symlinks), and candidates that resolve inside it", () => {
  const repo = plantedRepo();
  const found = findBwrap(undefined, repo.root, repo.hostilePath);
  assert.equal(found.bwrap, realBwrap);
  // Without a root to protect (the process-wide lookup), the same PATH would pick the planted one: the test can fail.
  assert.equal(findBwrap(undefined, undefined, repo.hostilePath).bwrap, path.join(repo.root, ".rt/bin/bwrap"));
  // Only planted ones on the PATH: none is acceptable.
  const only = findBwrap(
    undefined,
    repo.root,
    [path.join(repo.root, ".rt/bin"), "tools", repo.linkDir, repo.linkBin].join(":"),
  );
  assert.equal(only.bwrap, undefined);
  assert.match(
    only.reason ?? "",
    /only bwrap on the PATH rt started with lies inside the workspace \(.*\.rt\/bin\/bwrap/,
  );
  assert.match(
    findBwrap(undefined, repo.root, "tools:.rt/bin:/nonexistent").reason ?? "",
    /^bwrap is not on the PATH rt started with$/,
  );
  // RT_BWRAP must be absolute and outside the root.
  assert.match(findBwrap(path.join(repo.root, ".rt/bin/bwrap"), repo.root).reason ?? "", /inside the workspace/);
  assert.match(findBwrap(path.join(repo.linkBin, "bwrap"), repo.root).reason ?? "", /inside the workspace/);
  assert.match(findBwrap("tools/bwrap", repo.root).reason ?? "", /not an absolute path/);
  assert.match(findBwrap("/nonexistent/bwrap", repo.root).reason ?? "", /does not exist/);
  assert.equal(findBwrap(realBwrap, repo.root).bwrap, realBwrap);
  assert.equal(repo.ran(), "");
});

test("the PATH of the command's environment is never searched (the agent puts .rt/bin first on it)", async () => {
  const repo = plantedRepo();
  resetSandboxProbe();
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: repo.hostilePath };
  delete env.RT_BWRAP;
  const probe = await probeSandbox(env, repo.root);
  assert.equal(probe.available, true);
  assert.equal(probe.available && probe.bwrap, realBwrap);
  // The agent's workspace puts its private shim directory first, never a directory of the repository.
  const agentWs = agentWorkspace(createWorkspace({ root: repo.root, profile: "safe-read-only", env }));
  assert.ok(!agentWs.env.PATH?.split(":")[0].startsWith(repo.root), agentWs.env.PATH);
  // Whatever a command's PATH holds, even <root>/.rt/bin first, the sandbox is not looked up there.
  const ws = createWorkspace({
    root: repo.root,
    profile: "safe-read-only",
    env: { ...env, PATH: `${path.join(repo.root, ".rt", "bin")}:${env.PATH}` },
  });
  const r = await callTool(ws, "bash", { command: "cat /proc/1/comm" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.sandboxed, true);
  assert.equal(String(r.stdout).trim(), "bwrap", "PID 1 of the command is the real bubblewrap");
  assert.equal(repo.ran(), "", "a planted bwrap ran");
  resetSandboxProbe();
});

test("rt --profile safe-read-only bash, started with the planted directories first on its PATH: the real bubblewrap runs", async () => {
  const repo = plantedRepo();
  const cache = tempTree({}, "rt-cache-");
  for (const round of ["cold cache (bubblewrap is probed)", "warm cache"]) {
    const r = await rt(["--profile", "safe-read-only", "bash", "cat /proc/1/comm"], {
      cwd: repo.root,
      env: { PATH: repo.hostilePath, XDG_CACHE_HOME: cache, RT_BWRAP: undefined },
    });
    assert.equal(r.code, 0, `${round}: ${r.stderr}`);
    assert.equal(r.stdout.trim(), "bwrap", round);
    assert.equal(repo.ran(), "", `${round}: a planted bwrap ran`);
  }
  assert.ok(fs.existsSync(path.join(cache, "rt", "sandbox-probe.json")));
});

const ollama = scriptedOllama();

for (const mode of [
  {
    name: "--profile safe-read-only --approval auto",
    args: ["--profile", "safe-read-only", "run", "--approval", "auto"],
  },
  {
    name: "--approval plan (dev profile; plan mode sandboxes text-mode commands)",
    args: ["run", "--approval", "plan"],
  },
]) {
  test(`rt ${mode.name} --protocol text: the model's bash block runs in the real bubblewrap`, async () => {
    const repo = plantedRepo();
    ollama.server.script(reply.text("Let me check.\n```bash\ncat /proc/1/comm\n```"), reply.text("Done."));
    const r = await rt([...mode.args, "--model", "ollama/test-model", "--protocol", "text", "what runs as pid 1?"], {
      cwd: repo.root,
      env: ollama.env({ PATH: repo.hostilePath, XDG_CACHE_HOME: tempTree({}, "rt-cache-") }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(ollama.server.completions.length, 2, r.stderr);
    const seen = requestText(ollama.server.completions[1].body);
    assert.match(seen, /bwrap/, "the command's output reached the model");
    assert.equal(repo.ran(), "", "a planted bwrap ran");
  });
}
