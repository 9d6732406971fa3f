// Nothing from the repository runs as rt's own machinery. Invariants:
//   - the PATH given to commands never has a repository directory before a
//     system one: a committed `.rt/bin/git`, `bin/git` or `./git` never runs in
//     place of the system's `git`, in the agent's workspace or through `rt bash`;
//   - the `rt` shim lives in a private per-user directory (0700, the user's
//     own, outside the workspace), never in `.rt/bin`, and sandboxed commands
//     still find it.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { reply } from "../llm-server.ts";
import { rt, tempTree, CLI } from "../helpers.ts";
import { scriptedOllama, requestText } from "../agent/harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { agentWorkspace, ensureRtShim } from "../../src/agent/rtOnPath.ts";
import { safeCommandPath } from "../../src/workspace/commandPath.ts";

const ollama = scriptedOllama();
const systemGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

/** A repository that ships `git` (and `rt`, `bash`) in every place a PATH lookup could meet. */
function trappedRepo() {
  const parent = tempTree({}, "rt-trap-");
  const root = path.join(parent, "repo");
  const marker = path.join(parent, "PWNED");
  const trap = `#!/bin/sh\necho PWNED-$0\ntouch ${marker}\n`;
  for (const dir of [".rt/bin", "bin", "."]) {
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    for (const name of ["git", "rt", "bash", "sh", "ls"])
      fs.writeFileSync(path.join(root, dir, name), trap, { mode: 0o755 });
  }
  fs.writeFileSync(path.join(root, "a.txt"), "hello\n");
  execFileSync(systemGit, ["init", "-q"], { cwd: root });
  return { parent, root, marker };
}

test("a committed .rt/bin/git (and bin/git, ./git) never runs: git status in the agent's workspace runs the system git", async () => {
  const { root, marker } = trappedRepo();
  // The user's PATH even starts with the current directory and with the repository's bin/.
  const userPath = `.:${root}/bin::${root}/.rt/bin:bin:${process.env.PATH}`;
  const cache = tempTree();
  const ws = agentWorkspace(
    createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined, PATH: userPath, XDG_CACHE_HOME: cache } }),
  );
  const r = await callTool(ws, "bash", {
    command: "git status --porcelain; command -v git; command -v rt; echo PATH=$PATH",
  });
  assert.equal(r.success, true, r.error);
  assert.doesNotMatch(r.output, /PWNED/);
  assert.equal(fs.existsSync(marker), false, "no planted program ran");
  assert.match(r.output, new RegExp(`^${systemGit}$`, "m"), "git is the system's");
  const shimDir = fs.realpathSync(cache);
  assert.match(r.output, new RegExp(`^${shimDir}/rt/bin/[0-9a-f]{16}/rt$`, "m"), "rt is rt's own shim");
  const PATH = /PATH=(.*)/.exec(r.output)![1].split(":");
  assert.ok(!PATH.includes(".") && !PATH.includes("") && !PATH.includes("bin"), "relative entries are dropped");
  const firstRepo = PATH.findIndex((p) => p.startsWith(root));
  const lastSystem = PATH.map((p) => !p.startsWith(root)).lastIndexOf(true);
  assert.ok(
    firstRepo === -1 || firstRepo > lastSystem,
    `repository directories come after every other: ${PATH.join(":")}`,
  );
  assert.equal(
    fs.existsSync(path.join(root, ".rt", "bin", "rt")) &&
      fs.readFileSync(path.join(root, ".rt", "bin", "rt"), "utf8").includes(CLI),
    false,
    "rt wrote no shim into .rt/bin",
  );
});

test("rt bash (every face's bash tool) gets the same PATH: the repository's git does not run there either", async () => {
  const { root, marker } = trappedRepo();
  const r = await rt(["bash", "git --version; command -v git"], {
    cwd: root,
    env: { PATH: `.:${root}/bin:${root}/.rt/bin:${process.env.PATH}` },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /PWNED/);
  assert.match(r.stdout, new RegExp(`^${systemGit}$`, "m"));
  assert.equal(fs.existsSync(marker), false);
});

test("text mode: the model's `rt` and `git` are rt's shim and the system's, also inside the read-only sandbox", async () => {
  const { root, marker } = trappedRepo();
  // The shim must be visible inside the sandbox (which hides /tmp and /run): the default cache, ~/.cache.
  const probe = await rt(["--profile", "safe-read-only", "bash", "true"], { cwd: root });
  const profiles = probe.code === 0 ? ["dev", "safe-read-only"] : ["dev"];
  for (const profile of profiles) {
    ollama.server.reset();
    ollama.server.script(reply.text("```bash\ncommand -v rt; rt open a.txt; git --version\n```"), reply.text("Done."));
    const r = await rt(
      ["run", "--model", "ollama/test-model", "--protocol", "text", "--approval", "auto", "--profile", profile, "look"],
      { cwd: root, env: { ...ollama.env(), PATH: `.:${root}/.rt/bin:${process.env.PATH}` } },
    );
    assert.equal(r.code, 0, r.stderr);
    const shown = requestText(ollama.server.completions[1].body);
    assert.match(shown, /--- a\.txt \(lines 1-1 of 1\) ---\n1: hello/, `${profile}: rt ran: ${shown.slice(-600)}`);
    assert.match(shown, /\/rt\/bin\/[0-9a-f]{16}\/rt\n/, profile);
    assert.match(shown, /git version/, profile);
    assert.doesNotMatch(shown, /PWNED/, profile);
    assert.equal(fs.existsSync(marker), false, profile);
  }
});

test("the shim's directory is private (0700, the user's, outside the workspace); anything else is not used", () => {
  const uid = process.getuid!();
  const { root } = trappedRepo();
  const ws = (env: Record<string, string>) => createWorkspace({ root, env: { ...process.env, ...env } });
  const cache = tempTree();
  const dir = ensureRtShim(ws({ XDG_CACHE_HOME: cache }));
  assert.ok(dir.startsWith(fs.realpathSync(cache) + "/rt/bin/"));
  for (const d of [path.join(cache, "rt"), path.join(cache, "rt", "bin"), dir]) {
    const st = fs.statSync(d);
    assert.equal(st.mode & 0o777, 0o700, d);
    assert.equal(st.uid, uid, d);
  }
  assert.match(
    fs.readFileSync(path.join(dir, "rt"), "utf8"),
    new RegExp(
      `exec ('?)${process.execPath}\\1 ('?).*dist/cli\\.js\\2 "\\$@"`,
    ) /* quoted only when needed (shellQuote) */,
  );
  // Something else put into the shim's place is replaced by rt's own shim.
  fs.writeFileSync(path.join(dir, "rt"), "#!/bin/sh\necho planted\n");
  assert.equal(ensureRtShim(ws({ XDG_CACHE_HOME: cache })), dir);
  assert.match(fs.readFileSync(path.join(dir, "rt"), "utf8"), /dist\/cli\.js/);

  // Not private: a cache/rt others may enter; a cache inside the workspace; one owned by someone else.
  const loose = tempTree();
  fs.mkdirSync(path.join(loose, "rt"), { mode: 0o755 });
  fs.chmodSync(path.join(loose, "rt"), 0o755);
  const inside = path.join(root, "cache");
  const cases: Array<[string, string]> = [
    [loose, "open to others"],
    [inside, "inside the workspace"],
  ];
  if (uid === 0) {
    const foreign = tempTree();
    fs.mkdirSync(path.join(foreign, "rt"), { mode: 0o700 });
    fs.chownSync(path.join(foreign, "rt"), 65534, 65534);
    cases.push([foreign, "another user's"]);
  }
  for (const [dirCache, why] of cases) {
    const used = ensureRtShim(ws({ XDG_CACHE_HOME: dirCache }));
    // A fresh private directory of this process under the temporary directory instead.
    assert.equal(path.dirname(used), fs.realpathSync(os.tmpdir()), `${why}: ${used}`);
    assert.match(path.basename(used), /^rt-bin-/, why);
    assert.ok(!fs.existsSync(path.join(dirCache, "rt", "bin")), `${why}: nothing created there`);
    const st = fs.statSync(used);
    assert.equal(st.mode & 0o777, 0o700, why);
    assert.equal(st.uid, uid, why);
  }
  assert.equal(fs.existsSync(inside), false, "nothing created inside the workspace");
});

test("safeCommandPath: relative and empty entries dropped, repository entries after every other, order kept otherwise", () => {
  const root = tempTree({ "bin/.keep": "", "tools/.keep": "" });
  const outside = tempTree();
  fs.symlinkSync(path.join(root, "tools"), path.join(outside, "link-into-repo"));
  const cases: Array<[string, string]> = [
    ["/usr/bin:/bin", "/usr/bin:/bin"],
    [`.:/usr/bin::bin:./x:${root}/bin:/bin`, `/usr/bin:/bin:${root}/bin`],
    [`${root}/bin:${outside}/link-into-repo:/usr/local/bin`, `/usr/local/bin:${root}/bin:${outside}/link-into-repo`],
    ["/usr/bin:/usr/bin:/bin", "/usr/bin:/bin"],
  ];
  for (const [input, expected] of cases) assert.equal(safeCommandPath(input, root), expected, input);
  assert.equal(safeCommandPath(undefined, root), "/usr/local/bin:/usr/bin:/bin");
  assert.equal(
    safeCommandPath(`.:${root}/bin:/usr/bin`, root, ["/home/u/.cache/rt/bin/x"]),
    `/home/u/.cache/rt/bin/x:/usr/bin:${root}/bin`,
  );
});
