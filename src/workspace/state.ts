// The state directory `.rt/` at the workspace root: view windows, line IDs,
// line-offset indexes, the edit journal, sessions. It ignores itself in git
// (it holds a `.gitignore` of `*`). When persistence is off, nothing is written
// and every reader sees empty state; tools still work, statelessly.
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "./atomic.js";
import { hash64 } from "./fingerprint.js";
import { resolveInside } from "./paths.js";

export const STATE_DIR_NAME = ".rt";

export class StateStore {
  readonly dir: string;
  private ensured = false;

  constructor(root: string, readonly enabled: boolean) {
    this.dir = path.join(root, STATE_DIR_NAME);
  }

  /** Absolute path of a file inside the state directory. */
  file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** A stable, filesystem-safe key for a workspace-relative path (readers check the path stored inside the file). */
  static keyFor(rel: string): string {
    return hash64(Buffer.from(rel, "utf8"));
  }

  /**
   * False when `.rt` exists but is not a plain directory: a `.rt` symlink (say,
   * in a cloned repository) would lead state writes outside the root, so such a
   * workspace runs statelessly instead.
   */
  private usable(): boolean {
    if (!this.enabled) return false;
    try {
      return fs.lstatSync(this.dir).isDirectory();
    } catch {
      return true; // not there yet: ensure() creates it
    }
  }

  /** True when `abs` (a path in the state directory) leads nowhere outside it through a symlink. */
  private staysInside(abs: string): boolean {
    try {
      resolveInside(this.dir, abs);
      return true;
    } catch {
      return false;
    }
  }

  ensure(): boolean {
    if (!this.enabled) return false;
    if (this.ensured) return true;
    if (!this.usable()) return false;
    fs.mkdirSync(this.dir, { recursive: true });
    const ignore = path.join(this.dir, ".gitignore");
    try {
      // "wx" never follows a symlink planted at that name.
      if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, "*\n", { flag: "wx" });
    } catch {
      /* created meanwhile, or a symlink: leave it */
    }
    this.ensured = true;
    return true;
  }

  readJson<T>(...parts: string[]): T | undefined {
    if (!this.usable()) return undefined;
    try {
      return JSON.parse(fs.readFileSync(this.file(...parts), "utf8")) as T;
    } catch {
      return undefined; // missing or corrupt state is treated as no state
    }
  }

  writeJson(value: unknown, ...parts: string[]): void {
    this.writeText(JSON.stringify(value), ...parts);
  }

  /**
   * writeJson for state that is only a cache or a convenience (view windows, line
   * IDs, line indexes): when it cannot be written (a read-only checkout, a full
   * disk, a mangled .rt/), the tool still works and the state lives in memory only.
   */
  writeJsonBestEffort(value: unknown, ...parts: string[]): boolean {
    try {
      this.writeJson(value, ...parts);
      return true;
    } catch {
      return false;
    }
  }

  writeText(text: string | Buffer, ...parts: string[]): void {
    if (!this.ensure()) return;
    const target = this.file(...parts);
    if (!this.staysInside(target)) return; // a symlink inside .rt leads elsewhere: persist nothing there
    fs.mkdirSync(path.dirname(target), { recursive: true });
    writeFileAtomic(target, text, { fsync: false });
  }

  /**
   * Deletes the oldest files (by modification time) of a state directory so
   * that at most `keep` remain: saved outputs would otherwise pile up forever.
   */
  prune(keep: number, ...dirParts: string[]): void {
    const dir = this.file(...dirParts);
    if (!this.usable() || !this.staysInside(dir)) return;
    let files: Array<{ file: string; mtimeMs: number }>;
    try {
      files = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => {
          const file = path.join(dir, e.name);
          return { file, mtimeMs: fs.statSync(file).mtimeMs };
        });
    } catch {
      return; // no such directory yet, or it changed under us
    }
    files.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const f of files.slice(keep)) fs.rmSync(f.file, { force: true });
  }

  remove(...parts: string[]): void {
    if (!this.usable() || !this.staysInside(path.dirname(this.file(...parts)))) return;
    fs.rmSync(this.file(...parts), { force: true });
  }
}

/** RT_STATE=off (or the seed's RAGIX_VIEW_STATE=off) disables persistence. */
export function stateEnabledFromEnv(env: NodeJS.ProcessEnv): boolean {
  const off = (v: string | undefined) => v !== undefined && /^(off|0|false|no)$/i.test(v.trim());
  return !(off(env.RT_STATE) || off(env.RAGIX_VIEW_STATE));
}
