// Programs rt runs as its own machinery (bubblewrap for the sandbox, python3 for
// syntax checks) come from the system, never from a workspace: a repository can
// commit an executable with any name (`.rt/bin/bwrap`, `tools/python3`), and the
// PATH a command gets may start with a directory inside the workspace. So they
// are looked up on the PATH rt itself started with (captured when this module
// loads, before anything rt runs), skipping relative entries ("", ".", "bin":
// the current directory, which is the workspace) and every directory inside the
// workspace root, and refusing any candidate whose real path lies inside it.
import fs from "node:fs";
import path from "node:path";

/** PATH as it was when rt started. */
export const STARTUP_PATH = process.env.PATH;
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

export type ProgramLookup = { path: string; reason?: undefined } | { path?: undefined; reason: string };

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function isWithin(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);
}

export interface ProgramOptions {
  /** The workspace root: nothing inside it (lexically or through symlinks) is run. */
  root?: string;
  /** An explicit choice (`RT_BWRAP`, `RT_PYTHON`): `{ variable, value }`; it must be absolute and outside the root. */
  override?: { variable: string; value: string | undefined };
  /** The PATH to search; default: the PATH rt started with. */
  searchPath?: string;
  /** What the program is for, in the refusal ("its sandbox"). */
  purpose: string;
}

/** The real path of the system's `name` for a workspace rooted at `root`, or why there is none. */
export function findSystemProgram(name: string, opts: ProgramOptions): ProgramLookup {
  const { root } = opts;
  const realRoot = root !== undefined ? realOr(path.resolve(root)) : undefined;
  const insideRoot = (p: string) =>
    realRoot !== undefined &&
    realRoot !== "/" &&
    (isWithin(realRoot, p) || (root !== undefined && isWithin(path.resolve(root), p)));
  const chosen = opts.override?.value;
  if (opts.override && chosen !== undefined && chosen !== "") {
    const v = opts.override.variable;
    if (!path.isAbsolute(chosen)) return { reason: `${v}=${chosen} is not an absolute path` };
    if (!isExecutableFile(chosen)) return { reason: `${v}=${chosen} does not exist or is not an executable file` };
    const real = realOr(chosen);
    if (insideRoot(chosen) || insideRoot(real))
      return {
        reason: `${v}=${chosen} lies inside the workspace, and rt never runs ${opts.purpose} from the workspace`,
      };
    return { path: real };
  }
  const ignored: string[] = [];
  for (const dir of (opts.searchPath || DEFAULT_PATH).split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const p = path.join(dir, name);
    if (!isExecutableFile(p)) continue;
    const real = realOr(p);
    if (insideRoot(dir) || insideRoot(realOr(dir)) || insideRoot(real)) {
      ignored.push(p);
      continue;
    }
    return { path: real };
  }
  if (ignored.length)
    return {
      reason: `the only ${name} on the PATH rt started with lies inside the workspace (${ignored.join(", ")}), and rt never runs ${opts.purpose} from the workspace`,
    };
  return { reason: `${name} is not on the PATH rt started with` };
}
