// A small research target for the shell tests: a git repository with logs,
// sources and configuration (one tracked file modified and not committed, so
// `git checkout .` or `git stash` would have something to undo), a symbolic
// link leading out of it, a directory outside the workspace, and a fake HOME.
// The attacks in corpus/attacks.json aim at all three.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { tempTree, treeHash } from "../helpers.ts";
import { createWorkspace, type Workspace, type WorkspaceOptions } from "../../src/workspace/workspace.ts";

export interface ResearchTree {
  base: string;
  /** The workspace root (a git repository). */
  repo: string;
  /** A directory outside the root that attacks try to reach. */
  outside: string;
  /** The HOME the commands see. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Hash of repo (including .git), outside and home together. */
  hash(): string;
  workspace(opts?: Partial<WorkspaceOptions>): Workspace;
}

function logLines(): string {
  const out: string[] = [];
  const levels = ["INFO", "INFO", "WARN", "INFO", "ERROR"];
  for (let i = 0; i < 200; i++) {
    const level = levels[i % levels.length];
    const hh = String(10 + Math.floor(i / 60)).padStart(2, "0");
    const mm = String(i % 60).padStart(2, "0");
    const msg =
      level === "ERROR"
        ? `job ${i % 7} failed: timeout talking to db-${i % 3}`
        : level === "WARN"
          ? `slow response from db-${i % 3} (${100 + i} ms)`
          : `request ${i} served in ${i % 50} ms`;
    out.push(`2024-05-01 ${hh}:${mm}:00 ${level} ${msg}`);
  }
  return `${out.join("\n")}\n`;
}

/**
 * A temp directory outside /tmp when possible (/var/tmp): the sandbox gives
 * commands a private /tmp, so a HOME or an "outside" directory under /tmp
 * would be invisible to them instead of read-only.
 */
function baseDir(): string {
  for (const dir of ["/var/tmp", os.tmpdir()]) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
      const base = fs.realpathSync(fs.mkdtempSync(path.join(dir, "rt-shell-")));
      process.on("exit", () => fs.rmSync(base, { recursive: true, force: true }));
      return base;
    } catch {
      /* try the next */
    }
  }
  return tempTree({}, "rt-shell-");
}

export function researchTree(): ResearchTree {
  const base = baseDir();
  const repo = path.join(base, "repo");
  const outside = path.join(base, "outside");
  const home = path.join(base, "home");
  const files: Record<string, string> = {
    "README.md": "# demo service\n\nSee docs/ for details.\n",
    "data.txt": "alpha\nbeta\ngamma\nbeta\nalpha\nbeta\n",
    "notes.md": "first version\n",
    "src/app.py": "import util\n\n\ndef main():\n    # TODO: retry on timeout\n    return util.connect('db-1')\n",
    "src/util.py": "def connect(host):\n    # TODO: read the pool size from config\n    return host\n",
    "config/settings.json": '{"db": {"host": "db-1", "pool": 4}, "debug": false}\n',
    "logs/app.log": logLines(),
    "logs/worker.log": "2024-05-01 10:00:00 INFO worker up\n2024-05-01 10:05:00 ERROR worker lost connection\n",
    "scripts/run.sh": "#!/bin/sh\necho running\n",
    "docs/guide.md": "# Guide\n\nThe pool size is set in config/settings.json.\n",
  };
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(repo, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  fs.chmodSync(path.join(repo, "scripts/run.sh"), 0o755);
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, "target.txt"), "outside the workspace\n");
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".bashrc"), "# fake home\n");
  fs.writeFileSync(path.join(home, ".ssh", "authorized_keys"), "");
  // A tiny wheel, so that `pip install` has something to install without a network.
  execFileSync("python3", ["-c", WHEEL_SCRIPT, path.join(repo, "vendor", "rtdemo-0.1-py3-none-any.whl")]);
  const gitEnv = {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
    HOME: home,
  };
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: gitEnv, stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "initial import");
  fs.appendFileSync(path.join(repo, "README.md"), "\nDeployed with scripts/run.sh.\n");
  git("commit", "-q", "-am", "document deployment");
  fs.writeFileSync(path.join(repo, "notes.md"), "second version, not committed\n");
  fs.symlinkSync(outside, path.join(repo, "link-out"));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  delete env.RT_ROOT;
  delete env.RT_PROFILE;
  return {
    base,
    repo,
    outside,
    home,
    env,
    hash: () => `${treeHash(repo, [])}:${treeHash(outside, [])}:${treeHash(home, [])}`,
    workspace: (opts = {}) => createWorkspace({ root: repo, env, profile: "safe-read-only", ...opts }),
  };
}

const WHEEL_SCRIPT = `
import sys, os, zipfile, hashlib, base64
out = sys.argv[1]
os.makedirs(os.path.dirname(out), exist_ok=True)
files = {
    "rtdemo/__init__.py": "VALUE = 1\\n",
    "rtdemo-0.1.dist-info/METADATA": "Metadata-Version: 2.1\\nName: rtdemo\\nVersion: 0.1\\n",
    "rtdemo-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: rt-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
for name, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(text.encode())}")
record.append("rtdemo-0.1.dist-info/RECORD,,")
files["rtdemo-0.1.dist-info/RECORD"] = "\\n".join(record) + "\\n"
with zipfile.ZipFile(out, "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
`;

/** Text in a failed command's output that is the operating system refusing. */
export const OS_ERROR =
  /Read-only file system|Operation not permitted|Permission denied|Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known|No such file or directory|Connection refused|Couldn't connect|No space left on device|Bad address|not permitted|EROFS|EPERM|EACCES|ENETUNREACH|EAI_AGAIN|ECONNREFUSED/i;
