// The edit journal behind `rt undo`: before rt changes a file, the old bytes
// are saved under `.rt/journal/<key>/`, with the hash of the bytes rt wrote.
// Undo restores the newest entry, but only if the file still holds exactly
// what rt wrote (otherwise someone else changed it since, and undoing would
// lose their work). The newest JOURNAL_KEEP entries per file are kept.
//
// The journal is read back as untrusted input: its index carries rt's MAC
// (StateStore.readSignedJson), so a committed or planted journal, or one written by
// a tool, is no journal at all; each entry names the SHA-256 of the bytes it
// saved, and those are read from a regular file inside the state directory,
// never through a symlink, and must match. The mode recorded is only ever
// narrowed when restored (see restoredMode).
import type { StateStore } from "./state.js";
import { StateStore as Store } from "./state.js";
import { randomHex, sha256Hex } from "./stateKey.js";
import { ToolError } from "../base/errors.js";
import { EDIT_MAX_BYTES, JOURNAL_KEEP } from "../base/limits.js";

export interface Entry {
  seq: number;
  /** Hash of the content rt wrote. */
  afterHash: string;
  /** Whether the file existed before (undo of a creation deletes it). */
  existed: boolean;
  /** SHA-256 of the saved bytes, when the file existed. */
  beforeSha256?: string;
  /**
   * The file holding the saved bytes: `<seq>-<16 random hex>.before`, a name a
   * repository cannot guess, so it cannot track it (a tracked file rt wrote a
   * copy of `.env` into would go out with `git commit -a`). Entries of earlier
   * versions have none: theirs is `<seq>.before`.
   */
  saved?: string;
  mode?: number;
  time: string;
  tool: string;
}

interface JournalIndex {
  version: 2;
  path: string;
  next: number;
  entries: Entry[];
}

const HEX64 = /^[0-9a-f]{64}$/;

function validEntry(e: unknown, next: number): e is Entry {
  if (e === null || typeof e !== "object") return false;
  const x = e as Record<string, unknown>;
  if (!Number.isSafeInteger(x.seq) || (x.seq as number) < 1 || (x.seq as number) >= next) return false;
  if (
    typeof x.afterHash !== "string" ||
    typeof x.existed !== "boolean" ||
    typeof x.tool !== "string" ||
    typeof x.time !== "string"
  )
    return false;
  if (x.existed && !(typeof x.beforeSha256 === "string" && HEX64.test(x.beforeSha256))) return false;
  if (
    x.mode !== undefined &&
    !(Number.isSafeInteger(x.mode) && (x.mode as number) >= 0 && (x.mode as number) <= 0o7777)
  )
    return false;
  if (
    x.saved !== undefined &&
    !(typeof x.saved === "string" && new RegExp(`^${x.seq as number}-[0-9a-f]{16}\\.before$`).test(x.saved))
  )
    return false;
  return true;
}

/** The name of the file holding an entry's saved bytes. */
function savedName(e: Entry): string {
  return e.saved ?? `${e.seq}.before`;
}

function validIndex(idx: JournalIndex | undefined, rel: string): idx is JournalIndex {
  if (!idx || idx.version !== 2 || idx.path !== rel || !Number.isSafeInteger(idx.next) || idx.next < 1) return false;
  if (!Array.isArray(idx.entries) || idx.entries.length > JOURNAL_KEEP) return false;
  let last = 0;
  for (const e of idx.entries) {
    if (!validEntry(e, idx.next) || e.seq <= last) return false;
    last = e.seq;
  }
  return true;
}

/**
 * The mode undo gives a file: the recorded one, narrowed to the bits the file
 * has now and to plain permission bits. Undo never adds a permission the file
 * does not have at that moment, and never sets setuid, setgid or sticky.
 */
export function restoredMode(recorded: number | undefined, current: number): number {
  const now = current & 0o777;
  return recorded === undefined ? now : recorded & now;
}

export class Journal {
  constructor(private state: StateStore) {}

  private index(rel: string): JournalIndex {
    const idx = this.state.readSignedJson<JournalIndex>("journal", Store.keyFor(rel), "index.json");
    return validIndex(idx, rel) ? idx : { version: 2, path: rel, next: 1, entries: [] };
  }

  get enabled(): boolean {
    return this.state.enabled;
  }

  /**
   * Records that `rel` is about to change from `before` (null: did not exist) to
   * content hashing to `afterHash`. The entry is written before the file is (a
   * crash in between can still be undone); the caller then calls `commit()`
   * once the file is written, or `rollback()` when writing it failed (a full
   * disk), so that a failed edit leaves no entry for a change that never
   * happened. Entries pushed out by the JOURNAL_KEEP limit lose their saved
   * bytes only on commit.
   */
  record(
    rel: string,
    before: Buffer | null,
    afterHash: string,
    tool: string,
    mode?: number,
  ): { commit(): void; rollback(): void } {
    if (!this.state.enabled) return { commit() {}, rollback() {} };
    const key = Store.keyFor(rel);
    const idx = this.index(rel);
    const seq = idx.next++;
    const saved = before ? `${seq}-${randomHex(8)}.before` : undefined;
    // A saved copy's name is new (sequence number, random suffix): created in place, one rename less per edit.
    if (saved) this.state.writeNewText(before!, "journal", key, saved);
    const entry: Entry = { seq, afterHash, existed: before !== null, time: new Date().toISOString(), tool };
    if (before) entry.beforeSha256 = sha256Hex(before);
    if (saved) entry.saved = saved;
    if (mode !== undefined) entry.mode = mode & 0o7777;
    idx.entries.push(entry);
    const dropped: Entry[] = [];
    while (idx.entries.length > JOURNAL_KEEP) dropped.push(idx.entries.shift()!);
    try {
      this.state.writeSignedJson(idx, "journal", key, "index.json");
    } catch (e) {
      if (saved) this.state.remove("journal", key, saved);
      throw e;
    }
    return {
      commit: () => {
        for (const old of dropped) this.state.remove("journal", key, savedName(old));
      },
      rollback: () => {
        const now = this.index(rel);
        if (now.entries[now.entries.length - 1]?.seq === seq) {
          now.entries.pop();
          now.entries.unshift(...dropped);
          this.state.writeSignedJson(now, "journal", key, "index.json");
        }
        if (saved) this.state.remove("journal", key, saved);
      },
    };
  }

  /**
   * The newest entry and its saved bytes, if any. Throws ToolError when the
   * saved bytes are gone or are not the ones the entry names (replaced, a
   * symlink, a directory): undo must not restore anything else.
   */
  latest(rel: string): { entry: Entry; before: Buffer | null; remaining: number } | undefined {
    const idx = this.index(rel);
    const entry = idx.entries[idx.entries.length - 1];
    if (!entry) return undefined;
    let before: Buffer | null = null;
    if (entry.existed) {
      const saved = this.state.readBytes(["journal", Store.keyFor(rel), savedName(entry)], EDIT_MAX_BYTES);
      if (!saved || sha256Hex(saved) !== entry.beforeSha256) {
        throw new ToolError(
          `${rel}: the copy rt saved before its last edit (.rt/journal/) is missing or was changed since; undo refused, nothing was written. Use git to restore the file.`,
        );
      }
      before = saved;
    }
    return { entry, before, remaining: idx.entries.length - 1 };
  }

  /** Drops the newest entry (after it was undone). */
  pop(rel: string): void {
    const idx = this.index(rel);
    const entry = idx.entries.pop();
    if (!entry) return;
    this.state.remove("journal", Store.keyFor(rel), savedName(entry));
    this.state.writeSignedJson(idx, "journal", Store.keyFor(rel), "index.json");
  }
}
