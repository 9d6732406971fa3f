// The edit journal behind `rt undo`: before rt changes a file, the old bytes
// are saved under `.rt/journal/<key>/`, with the hash of the bytes rt wrote.
// Undo restores the newest entry, but only if the file still holds exactly
// what rt wrote (otherwise someone else changed it since, and undoing would
// lose their work). The newest JOURNAL_KEEP entries per file are kept.
import fs from "node:fs";
import type { StateStore } from "./state.js";
import { StateStore as Store } from "./state.js";

export const JOURNAL_KEEP = 50;

interface Entry {
  seq: number;
  /** Hash of the content rt wrote. */
  afterHash: string;
  /** Whether the file existed before (undo of a creation deletes it). */
  existed: boolean;
  mode?: number;
  time: string;
  tool: string;
}

interface JournalIndex {
  version: 1;
  path: string;
  next: number;
  entries: Entry[];
}

export class Journal {
  constructor(private state: StateStore) {}

  private index(rel: string): JournalIndex {
    const idx = this.state.readJson<JournalIndex>("journal", Store.keyFor(rel), "index.json");
    return idx && idx.version === 1 && idx.path === rel ? idx : { version: 1, path: rel, next: 1, entries: [] };
  }

  get enabled(): boolean {
    return this.state.enabled;
  }

  /** Records that `rel` is about to change from `before` (null: did not exist) to content hashing to `afterHash`. */
  record(rel: string, before: Buffer | null, afterHash: string, tool: string, mode?: number): void {
    if (!this.state.enabled) return;
    const key = Store.keyFor(rel);
    const idx = this.index(rel);
    const seq = idx.next++;
    if (before) this.state.writeText(before, "journal", key, `${seq}.before`);
    idx.entries.push({ seq, afterHash, existed: before !== null, mode, time: new Date().toISOString(), tool });
    while (idx.entries.length > JOURNAL_KEEP) {
      const old = idx.entries.shift()!;
      this.state.remove("journal", key, `${old.seq}.before`);
    }
    this.state.writeJson(idx, "journal", key, "index.json");
  }

  /** The newest entry and its saved bytes, if any. */
  latest(rel: string): { entry: Entry; before: Buffer | null; remaining: number } | undefined {
    const idx = this.index(rel);
    const entry = idx.entries[idx.entries.length - 1];
    if (!entry) return undefined;
    const before = entry.existed ? fs.readFileSync(this.state.file("journal", Store.keyFor(rel), `${entry.seq}.before`)) : null;
    return { entry, before, remaining: idx.entries.length - 1 };
  }

  /** Drops the newest entry (after it was undone). */
  pop(rel: string): void {
    const idx = this.index(rel);
    const entry = idx.entries.pop();
    if (!entry) return;
    this.state.remove("journal", Store.keyFor(rel), `${entry.seq}.before`);
    this.state.writeJson(idx, "journal", Store.keyFor(rel), "index.json");
  }
}
