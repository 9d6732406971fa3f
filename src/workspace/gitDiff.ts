// `--show-diff` (or RT_AUTO_DIFF=1) after an edit of a file git tracks shows
// `git diff -- FILE`: the file against git's index,
// every change since the last `git add`, not only rt's last edit. For a file
// git does not track (or no git, or no repository) the caller gets the edit's
// own diff instead.
//
// The repository is untrusted input, and git reads the repository's own
// configuration (.git/config) and attributes (.gitattributes), several of
// which name programs git runs: a pager (core.pager), an external diff
// (diff.external, diff.<driver>.command), a text conversion (textconv), a clean
// filter (filter.<driver>.clean/process, run on the working-tree file to
// compare it), an fsmonitor hook (core.fsmonitor, run when the index is read),
// a transport for a missing object (partial clones). rt runs the system's git
// (never one found in the workspace or on a PATH the repository controls),
// with an environment of its own (no system or global configuration, no GIT_*
// variable of the caller) and every one of those switched off on the command
// line, which git reads after the repository's configuration:
//   --no-pager, --no-ext-diff, --no-textconv, -c core.pager=cat,
//   -c core.fsmonitor=false, -c core.hooksPath=/dev/null, -c protocol.allow=never,
//   and for the file's filter driver (asked with `git check-attr`, which runs
//   nothing) empty clean/smudge/process commands, not required.
// Output options the repository could change are given explicitly (-U3,
// a/ and b/ prefixes, no colour, no relative paths).
import { spawnSync } from "node:child_process";
import { findSystemProgram } from "../base/systemProgram.js";
import { GIT_DIFF_MAX_BYTES, GIT_DIFF_TIMEOUT_MS } from "../base/limits.js";

/** The `-c` settings every git command rt runs for a diff gets. */
const NEUTRAL_CONFIG = [
  "core.pager=cat",
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.attributesFile=/dev/null",
  "core.untrackedCache=false",
  "protocol.allow=never",
  "diff.external=",
  "diff.interHunkContext=0",
  "color.ui=false",
];

/** A filter driver's name git will accept in `-c filter.<name>.clean=` (anything else: no git diff). */
const DRIVER_NAME = /^[A-Za-z0-9_.+-]+$/;

function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/",
    LC_ALL: "C",
    LANG: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_LITERAL_PATHSPECS: "1",
  };
}

function runGit(git: string, root: string, args: string[]): { ok: boolean; stdout: Buffer; status: number | null } {
  const config = NEUTRAL_CONFIG.flatMap((c) => ["-c", c]);
  const r = spawnSync(git, ["--no-pager", "--literal-pathspecs", ...config, ...args], {
    cwd: root,
    env: gitEnv(),
    stdio: ["ignore", "pipe", "ignore"],
    timeout: GIT_DIFF_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: GIT_DIFF_MAX_BYTES,
  });
  return { ok: !r.error && r.signal === null, stdout: r.stdout ?? Buffer.alloc(0), status: r.status };
}

export type GitDiff = { diff: string } | { unavailable: string };

/**
 * `git diff -- rel` in the repository holding `root`, run safely (see above),
 * or why there is none: the file is not tracked, git is missing, the command
 * failed. `rel` is relative to the root.
 */
export function gitDiffOf(root: string, rel: string): GitDiff {
  const found = findSystemProgram("git", { root, purpose: "git diff" });
  if (found.path === undefined) return { unavailable: found.reason ?? "git not found" };
  const git = found.path;
  // Tracked: an entry in the index (a regular file; not a conflict, a symlink or a submodule).
  const listed = runGit(git, root, ["ls-files", "-s", "-z", "--", rel]);
  if (!listed.ok || listed.status !== 0) return { unavailable: "not in a git repository rt can read" };
  const entries = listed.stdout.toString("utf8").split("\0").filter(Boolean);
  if (entries.length === 0) return { unavailable: `${rel} is not tracked by git` };
  if (entries.length !== 1 || !/^100(644|755) [0-9a-f]+ 0\t/.test(entries[0]))
    return { unavailable: `${rel} is not a plain file in git's index` };
  // The filter driver git would run on the working-tree file.
  const attrs = runGit(git, root, ["check-attr", "-z", "filter", "--", rel]);
  if (!attrs.ok || attrs.status !== 0) return { unavailable: "git check-attr failed" };
  const [, , filter] = attrs.stdout.toString("utf8").split("\0");
  const filterConfig: string[] = [];
  if (filter !== undefined && filter !== "unspecified" && filter !== "unset" && filter !== "set" && filter !== "") {
    if (!DRIVER_NAME.test(filter))
      return { unavailable: `${rel} has a filter driver rt cannot switch off (${JSON.stringify(filter)})` };
    for (const key of ["clean", "smudge", "process"]) filterConfig.push("-c", `filter.${filter}.${key}=`);
    filterConfig.push("-c", `filter.${filter}.required=false`);
  }
  const diff = runGit(git, root, [
    ...filterConfig,
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-relative",
    "-U3",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--",
    rel,
  ]);
  if (!diff.ok || diff.status !== 0) return { unavailable: "git diff failed" };
  return { diff: diff.stdout.toString("utf8") };
}
