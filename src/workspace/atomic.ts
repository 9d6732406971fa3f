// Atomic file replacement: write a temp file in the same directory, fsync it,
// rename it over the target, fsync the directory. A crash at any moment leaves
// either the old file or the new one, never a mix. The file's mode is kept.
// The work is done by the confined writer (confinedFs.ts); this entry point is
// for a target whose directory the caller trusts as it is (its path is resolved
// once, then the file is written relative to the opened directory).
import path from "node:path";
import { confinedAt, type WriteOptions } from "./confinedFs.js";

export type AtomicWriteOptions = Pick<WriteOptions, "mode" | "fsync">;

export function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  confinedAt(path.dirname(target)).writeAtomic(path.basename(target), data, opts);
}
