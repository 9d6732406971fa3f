// A file's line IDs as runs of consecutive counters. IDs are a bijection of a
// per-file counter (lineIds.ts), and fresh IDs are handed out in order, so the
// IDs of a file are a few runs: one after its first read, two or three more
// per edit. Half a million ID strings cost hundreds of milliseconds to make,
// split, join and collect; a handful of runs cost nothing, and a large file's
// edit splices runs without making any string but the few lines shown.
// A run may also stand for "no ID" (what the caller was shown: nothing there).

import { lastAtMost } from "../edit/largeText.js";

/** The counter of a run of entries that hold no ID. */
const NONE = -1;

/** Appends `n` entries from counter `s` to the runs, extending the last run when they continue it (runs stay normalized). */
function appendRun(starts: number[], lens: number[], s: number, n: number): void {
  const k = starts.length - 1;
  if (k >= 0 && (s === NONE ? starts[k] === NONE : starts[k] !== NONE && starts[k] + lens[k] === s)) lens[k] += n;
  else {
    starts.push(s);
    lens.push(n);
  }
}

export class IdRuns {
  /** Entries before each run (prefix sums of `lens`), for at(). */
  private offsets: number[] | undefined;
  private array: Array<string | null> | undefined;
  /**
   * Makes `array` from the arrays this was cut or joined from (slice, concat),
   * set while they are at hand: a small file's IDs after an edit are its old
   * ID strings copied and the few new ones made, not every ID made again.
   */
  private fromArrays: ((idOf: (counter: number) => string) => Array<string | null>) | undefined;

  /** `starts[k]`: counter of run k's first entry (NONE: no ID); `lens[k]`: its length. Normalized (see concat). */
  private constructor(
    readonly starts: readonly number[],
    readonly lens: readonly number[],
    readonly length: number,
  ) {}

  static readonly empty = new IdRuns([], [], 0);

  /** `count` entries with consecutive counters from `first`. */
  static fresh(first: number, count: number): IdRuns {
    return count > 0 ? new IdRuns([first], [count], count) : IdRuns.empty;
  }

  /** `count` entries holding no ID. */
  static none(count: number): IdRuns {
    return count > 0 ? new IdRuns([NONE], [count], count) : IdRuns.empty;
  }

  /** Runs of counters (NONE where an entry is null), from IDs already known to be well formed. */
  static fromCounters(counters: ArrayLike<number>): IdRuns {
    const starts: number[] = [];
    const lens: number[] = [];
    for (let i = 0; i < counters.length; i++) appendRun(starts, lens, counters[i], 1);
    return new IdRuns(starts, lens, counters.length);
  }

  /** The runs of `ids` (null: no ID); each ID must be well formed (toCounter is the inverse of the ID bijection). */
  static fromIds(ids: ReadonlyArray<string | null>, toCounter: (id: string) => number): IdRuns {
    const counters = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      counters[i] = id === null ? NONE : toCounter(id);
    }
    const r = IdRuns.fromCounters(counters);
    r.array = ids.slice();
    return r;
  }

  /** Runs one after another, adjacent runs that continue each other merged (so equal sequences have equal runs). */
  static concat(parts: readonly IdRuns[]): IdRuns {
    const starts: number[] = [];
    const lens: number[] = [];
    let length = 0;
    for (const p of parts) {
      for (let j = 0; j < p.starts.length; j++) if (p.lens[j] > 0) appendRun(starts, lens, p.starts[j], p.lens[j]);
      length += p.length;
    }
    const joined = new IdRuns(starts, lens, length);
    if (parts.some((p) => p.array !== undefined || p.fromArrays !== undefined)) {
      joined.fromArrays = (idOf) => {
        const out: Array<string | null> = [];
        for (const p of parts) for (const id of p.toArray(idOf)) out.push(id);
        return out;
      };
    }
    return joined;
  }

  private runOf(i: number): number {
    if (!this.offsets) {
      this.offsets = new Array<number>(this.lens.length);
      let at = 0;
      for (let k = 0; k < this.lens.length; k++) {
        this.offsets[k] = at;
        at += this.lens[k];
      }
    }
    return lastAtMost(this.offsets, i);
  }

  /** The counter of entry i (NONE when it holds no ID); i in [0, length). */
  counterAt(i: number): number {
    const k = this.runOf(i);
    const s = this.starts[k];
    return s === NONE ? NONE : s + (i - this.offsets![k]);
  }

  /** Entries [from, to) (clamped to the sequence). */
  slice(from: number, to: number = this.length): IdRuns {
    const a = Math.max(0, Math.min(from, this.length));
    const b = Math.max(a, Math.min(to, this.length));
    if (a === 0 && b === this.length) return this;
    if (a === b) return IdRuns.empty;
    const first = this.runOf(a);
    const last = this.runOf(b - 1);
    const o = this.offsets!;
    const starts: number[] = [];
    const lens: number[] = [];
    for (let k = first; k <= last; k++) {
      const lo = Math.max(a, o[k]);
      const hi = Math.min(b, o[k] + this.lens[k]);
      starts.push(this.starts[k] === NONE ? NONE : this.starts[k] + (lo - o[k]));
      lens.push(hi - lo);
    }
    const cut = new IdRuns(starts, lens, b - a);
    const source = this.array;
    if (source) cut.fromArrays = () => source.slice(a, b);
    return cut;
  }

  /** The position of the entry with counter `counter`, or -1. */
  indexOfCounter(counter: number): number {
    let at = 0;
    for (let k = 0; k < this.starts.length; k++) {
      const s = this.starts[k];
      if (s !== NONE && counter >= s && counter < s + this.lens[k]) return at + (counter - s);
      at += this.lens[k];
    }
    return -1;
  }

  /** The largest counter held, or -1 when there is none. */
  maxCounter(): number {
    let max = NONE;
    for (let k = 0; k < this.starts.length; k++)
      if (this.starts[k] !== NONE) max = Math.max(max, this.starts[k] + this.lens[k] - 1);
    return max;
  }

  /** Whether no counter appears twice (IDs are distinct). */
  distinct(): boolean {
    const held = this.starts
      .map((s, k) => [s, this.lens[k]])
      .filter(([s]) => s !== NONE)
      .sort((x, y) => x[0] - y[0]);
    for (let k = 1; k < held.length; k++) if (held[k][0] < held[k - 1][0] + held[k - 1][1]) return false;
    return true;
  }

  /** Whether both hold the same entries (runs are normalized, so the same runs). */
  equals(other: IdRuns): boolean {
    if (other === this) return true;
    if (other.length !== this.length || other.starts.length !== this.starts.length) return false;
    for (let k = 0; k < this.starts.length; k++)
      if (other.starts[k] !== this.starts[k] || other.lens[k] !== this.lens[k]) return false;
    return true;
  }

  /** Every entry as an ID (null: none), made once. */
  toArray(idOf: (counter: number) => string): Array<string | null> {
    if (!this.array && this.fromArrays) {
      this.array = this.fromArrays(idOf);
      this.fromArrays = undefined;
    }
    if (!this.array) {
      const out = new Array<string | null>(this.length);
      let at = 0;
      for (let k = 0; k < this.starts.length; k++) {
        const s = this.starts[k];
        for (let j = 0; j < this.lens[k]; j++) out[at++] = s === NONE ? null : idOf(s + j);
      }
      this.array = out;
    }
    return this.array;
  }

  /** Whether any entry holds no ID. */
  hasNone(): boolean {
    return this.starts.includes(NONE);
  }

  /** Stored form: "counter+length" per run, comma-separated ("-1" for entries without an ID). */
  serialize(): string {
    return this.starts.map((s, k) => `${s}+${this.lens[k]}`).join(",");
  }

  /** The runs of serialize(), or undefined when `text` is not that form. */
  static parse(text: string): IdRuns | undefined {
    if (text === "") return IdRuns.empty;
    const starts: number[] = [];
    const lens: number[] = [];
    for (const part of text.split(",")) {
      const m = /^(-1|\d{1,15})\+(\d{1,15})$/.exec(part);
      if (!m) return undefined;
      starts.push(Number(m[1]));
      lens.push(Number(m[2]));
    }
    const parts = starts.map((s, k) => new IdRuns([s], [lens[k]], lens[k]));
    return IdRuns.concat(parts);
  }
}
