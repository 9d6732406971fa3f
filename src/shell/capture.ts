// Output capture with a bounded memory: a stream is kept whole up to a limit;
// past it, only its head and its tail stay in memory and the full text is
// written, as it arrives, to a file under the state directory (`.rt/shell/`),
// whose path the result names so the rest can be read or grepped. The file is
// created by whoever supplies the SpillTarget (the bash tool: the workspace's
// confined writer, O_EXCL|O_NOFOLLOW under `.rt/shell/`); this module only
// writes to what it gets.
import { BASH_SAVED_OUTPUT_MAX_BYTES } from "../base/limits.js";
import { pluralGrouped } from "../base/text.js";

/** An open file the full text goes to. */
export interface SpillSink {
  write(data: Uint8Array): void;
  close(): void;
}

export interface SpillTarget {
  /** How to show the file to the user (relative to the workspace root). */
  shown: string;
  /** Creates the file when the stream overflows (called at most once; throws when it cannot). */
  open: () => SpillSink;
}

export interface CapturedText {
  text: string;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
  /** Where the full text was saved, when it was cut and saving was possible. */
  savedPath?: string;
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  let i = buf.indexOf(10);
  while (i !== -1) {
    n++;
    i = buf.indexOf(10, i + 1);
  }
  return n;
}

/**
 * Joins a kept head and tail around a marker saying what was cut, moving the
 * cuts to line boundaries where that loses little.
 */
export function headTail(head: Buffer, tail: Buffer, omittedBytes: number, omittedLines: number, note: string): string {
  // Cut the head after its last complete line and the tail before its first, when that loses little.
  let h = head;
  const lastNl = h.lastIndexOf(10);
  if (lastNl !== -1 && lastNl >= h.length / 2) h = h.subarray(0, lastNl + 1);
  let t = tail;
  const firstNl = t.indexOf(10);
  if (firstNl !== -1 && firstNl < t.length / 2) t = t.subarray(firstNl + 1);
  const cutBytes = omittedBytes + (head.length - h.length) + (tail.length - t.length);
  const headText = h.toString("utf8");
  const marker = `[... ${pluralGrouped(cutBytes, "byte")}${omittedLines > 0 ? ` (about ${pluralGrouped(omittedLines, "line")})` : ""} cut here${note ? `; ${note}` : ""} ...]`;
  return `${headText}${headText.endsWith("\n") || headText === "" ? "" : "\n"}${marker}\n${t.toString("utf8")}`;
}

/** Cuts `text` to about `maxBytes`, keeping head and tail (no file is written). */
export function truncateHeadTail(text: string, maxBytes: number, note = ""): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false };
  const half = Math.floor(maxBytes / 2);
  const head = buf.subarray(0, half);
  const tail = buf.subarray(buf.length - half);
  const middle = buf.subarray(half, buf.length - half);
  return { text: headTail(head, tail, middle.length, countNewlines(middle), note), truncated: true };
}

export class StreamCapture {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private lines = 0;
  private head: Buffer | undefined;
  private tailChunks: Buffer[] = [];
  private tailBytes = 0;
  private sink: SpillSink | undefined;
  private savedBytes = 0;
  private saveError: string | undefined;
  private spilled = false;

  constructor(
    private readonly maxBytes: number,
    private readonly spill: SpillTarget | undefined,
    private readonly spillDisabledNote = "the full text was not saved",
  ) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.lines += countNewlines(chunk);
    if (!this.spilled) {
      this.chunks.push(chunk);
      if (this.bytes <= this.maxBytes) return;
      // Overflow: keep the head, start the tail, and save everything seen so far.
      this.spilled = true;
      const all = Buffer.concat(this.chunks);
      this.chunks = [];
      const half = Math.floor(this.maxBytes / 2);
      this.head = all.subarray(0, half);
      this.openSpill();
      this.save(all);
      this.addTail(all.subarray(half));
      return;
    }
    this.save(chunk);
    this.addTail(chunk);
  }

  private addTail(chunk: Buffer): void {
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.length;
    const keep = Math.floor(this.maxBytes / 2);
    while (this.tailChunks.length > 1 && this.tailBytes - this.tailChunks[0].length >= keep) {
      this.tailBytes -= this.tailChunks[0].length;
      this.tailChunks.shift();
    }
  }

  private openSpill(): void {
    if (!this.spill) return;
    try {
      this.sink = this.spill.open();
    } catch (e) {
      this.saveError = (e as Error).message;
    }
  }

  private save(chunk: Buffer): void {
    if (this.sink === undefined) return;
    const room = BASH_SAVED_OUTPUT_MAX_BYTES - this.savedBytes;
    const part = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
    try {
      if (part.length > 0) this.sink.write(part);
      this.savedBytes += part.length;
    } catch (e) {
      this.saveError = (e as Error).message;
      this.close();
    }
  }

  private close(): void {
    if (this.sink !== undefined) {
      try {
        this.sink.close();
      } catch {
        /* already closed */
      }
      this.sink = undefined;
    }
  }

  get totalBytes(): number {
    return this.bytes;
  }

  finish(): CapturedText {
    if (!this.spilled) {
      this.close();
      return {
        text: Buffer.concat(this.chunks).toString("utf8"),
        truncated: false,
        totalBytes: this.bytes,
        totalLines: this.lines,
      };
    }
    const savedAll = this.sink !== undefined && this.savedBytes === this.bytes;
    const savedSome = this.sink !== undefined && this.savedBytes > 0;
    this.close();
    let tail = Buffer.concat(this.tailChunks);
    const keep = Math.floor(this.maxBytes / 2);
    if (tail.length > keep) tail = tail.subarray(tail.length - keep);
    const head = this.head ?? Buffer.alloc(0);
    const omitted = this.bytes - head.length - tail.length;
    let note: string;
    if (savedAll) note = `full text (${pluralGrouped(this.bytes, "byte")}) saved to ${this.spill!.shown}`;
    else if (savedSome)
      note = `the first ${pluralGrouped(this.savedBytes, "byte")} of the full text saved to ${this.spill!.shown}`;
    else note = this.saveError ? `the full text could not be saved: ${this.saveError}` : this.spillDisabledNote;
    const approxLines = Math.max(0, this.lines - countNewlines(head) - countNewlines(tail));
    return {
      text: headTail(head, tail, omitted, approxLines, note),
      truncated: true,
      totalBytes: this.bytes,
      totalLines: this.lines,
      ...(savedSome ? { savedPath: this.spill!.shown } : {}),
    };
  }
}
