// The state directory `.rt/` at the workspace root: view windows, line IDs,
// line-offset indexes, the edit journal, sessions. It ignores itself in git
// (it holds a `.gitignore` of `*`). When persistence is off, nothing is written
// and every reader sees empty state; tools still work, statelessly.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { writeFileAtomic } from "./atomic.js";

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

  /** A stable, filesystem-safe key for a workspace-relative path. */
  static keyFor(rel: string): string {
    return crypto.createHash("sha1").update(rel).digest("hex").slice(0, 20);
  }

  ensure(): boolean {
    if (!this.enabled) return false;
    if (this.ensured) return true;
    fs.mkdirSync(this.dir, { recursive: true });
    const ignore = path.join(this.dir, ".gitignore");
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, "*\n");
    this.ensured = true;
    return true;
  }

  readJson<T>(...parts: string[]): T | undefined {
    if (!this.enabled) return undefined;
    try {
      return JSON.parse(fs.readFileSync(this.file(...parts), "utf8")) as T;
    } catch {
      return undefined; // missing or corrupt state is treated as no state
    }
  }

  writeJson(value: unknown, ...parts: string[]): void {
    this.writeText(JSON.stringify(value), ...parts);
  }

  writeText(text: string | Buffer, ...parts: string[]): void {
    if (!this.ensure()) return;
    const target = this.file(...parts);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    writeFileAtomic(target, text, { fsync: false });
  }

  remove(...parts: string[]): void {
    if (!this.enabled) return;
    fs.rmSync(this.file(...parts), { force: true });
  }
}

/** RT_STATE=off (or the seed's RAGIX_VIEW_STATE=off) disables persistence. */
export function stateEnabledFromEnv(env: NodeJS.ProcessEnv): boolean {
  const off = (v: string | undefined) => v !== undefined && /^(off|0|false|no)$/i.test(v.trim());
  return !(off(env.RT_STATE) || off(env.RAGIX_VIEW_STATE));
}
