// The prompts typed in the full-screen UI, per project, across sessions: one
// JSON string per line in the user's state directory
// ($XDG_STATE_HOME/rt/prompts/<project>.jsonl, else ~/.local/state/rt/...),
// never in the repository (a prompt can hold anything the user pasted).
// The file is the user's own: created mode 0600 in a 0700 directory, and a
// symlink in its place is not followed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { confinedAt } from "../../workspace/confinedFs.js";
import { TUI_PROMPT_HISTORY_MAX, TUI_PROMPT_HISTORY_ENTRY_MAX_CHARS } from "../../base/limits.js";

export function userStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), ".local", "state"), "rt");
}

export function promptHistoryFile(root: string, env: NodeJS.ProcessEnv): string {
  const key = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return path.join(
    userStateDir(env),
    "prompts",
    `${path
      .basename(root)
      .replace(/[^\w.-]/g, "_")
      .slice(0, 40)}-${key}.jsonl`,
  );
}

export class PromptHistory {
  readonly entries: string[] = [];

  constructor(private readonly file: string) {
    let text = "";
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        text = fs.readFileSync(fd, "utf8");
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return; // none yet, or unreadable: the history starts empty
    }
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === "string") this.entries.push(v);
      } catch {
        // a torn last line (two UIs writing at once): skip it
      }
    }
    if (this.entries.length > TUI_PROMPT_HISTORY_MAX) {
      this.entries.splice(0, this.entries.length - TUI_PROMPT_HISTORY_MAX);
      this.rewrite();
    }
  }

  add(prompt: string): void {
    if (prompt.trim() === "" || prompt.length > TUI_PROMPT_HISTORY_ENTRY_MAX_CHARS) return;
    if (this.entries[this.entries.length - 1] === prompt) return;
    this.entries.push(prompt);
    try {
      // Through the one confined writer: no symlink followed on the way or at the name.
      const dir = confinedAt(path.dirname(this.file));
      dir.mkdirs([], 0o700);
      const name = path.basename(this.file);
      let out;
      try {
        out = dir.openExclusive(name, { append: true, mode: 0o600, fsync: false });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        out = dir.openAppend(name);
      }
      try {
        out.write(`${JSON.stringify(prompt)}\n`);
      } finally {
        out.close();
      }
    } catch {
      // History is a convenience: a read-only home must not stop the session.
    }
  }

  private rewrite(): void {
    try {
      confinedAt(path.dirname(this.file)).writeAtomic(
        path.basename(this.file),
        this.entries.map((e) => `${JSON.stringify(e)}\n`).join(""),
        { mode: 0o600, fsync: false },
      );
    } catch {
      // kept as it was; trimmed next time
    }
  }
}
