// The prompt's text being edited: several lines and a cursor, and the history
// of earlier prompts behind ↑/↓. Pure state; the app maps keys onto it.

export class Editor {
  lines: string[] = [""];
  row = 0;
  col = 0;

  get text(): string {
    return this.lines.join("\n");
  }

  get empty(): boolean {
    return this.lines.length === 1 && this.lines[0] === "";
  }

  set(text: string): void {
    this.lines = text.split("\n");
    this.row = this.lines.length - 1;
    this.col = this.lines[this.row].length;
  }

  clear(): void {
    this.set("");
  }

  /** Typed or pasted text; a paste's newlines become lines (they do not submit). */
  insert(s: string): void {
    const clean = s
      .replace(/\r\n?/g, "\n")
      .replace(/\t/g, "  ")
      .replace(/[\x00-\x09\x0b-\x1f\x7f]/g, "");
    const line = this.lines[this.row];
    const parts = (line.slice(0, this.col) + clean + "\u0000" + line.slice(this.col)).split("\n");
    const lastIdx = parts.length - 1;
    const [beforeCursor, afterCursor] = parts[lastIdx].split("\u0000");
    parts[lastIdx] = beforeCursor + afterCursor;
    this.lines.splice(this.row, 1, ...parts);
    this.row += lastIdx;
    this.col = beforeCursor.length;
  }

  newline(): void {
    this.insert("\n");
  }

  backspace(): void {
    if (this.col > 0) {
      const l = this.lines[this.row];
      this.lines[this.row] = l.slice(0, this.col - 1) + l.slice(this.col);
      this.col--;
    } else if (this.row > 0) {
      const prev = this.lines[this.row - 1];
      this.lines.splice(this.row - 1, 2, prev + this.lines[this.row]);
      this.row--;
      this.col = prev.length;
    }
  }

  deleteForward(): void {
    const l = this.lines[this.row];
    if (this.col < l.length) this.lines[this.row] = l.slice(0, this.col) + l.slice(this.col + 1);
    else if (this.row < this.lines.length - 1) this.lines.splice(this.row, 2, l + this.lines[this.row + 1]);
  }

  left(): void {
    if (this.col > 0) this.col--;
    else if (this.row > 0) {
      this.row--;
      this.col = this.lines[this.row].length;
    }
  }

  right(): void {
    if (this.col < this.lines[this.row].length) this.col++;
    else if (this.row < this.lines.length - 1) {
      this.row++;
      this.col = 0;
    }
  }

  /** Moves up a line; false when already on the first (↑ then means history). */
  up(): boolean {
    if (this.row === 0) return false;
    this.row--;
    this.col = Math.min(this.col, this.lines[this.row].length);
    return true;
  }

  down(): boolean {
    if (this.row === this.lines.length - 1) return false;
    this.row++;
    this.col = Math.min(this.col, this.lines[this.row].length);
    return true;
  }

  home(): void {
    this.col = 0;
  }

  end(): void {
    this.col = this.lines[this.row].length;
  }

  /** Ctrl-U: the current line up to the cursor. */
  killBefore(): void {
    this.lines[this.row] = this.lines[this.row].slice(this.col);
    this.col = 0;
  }

  /** Ctrl-K: the current line from the cursor. */
  killAfter(): void {
    this.lines[this.row] = this.lines[this.row].slice(0, this.col);
  }

  /** Ctrl-W: the word before the cursor. */
  killWord(): void {
    const l = this.lines[this.row];
    const before = l.slice(0, this.col).replace(/\S+\s*$/, "");
    this.lines[this.row] = before + l.slice(this.col);
    this.col = before.length;
  }

  /** The word the cursor ends (for completion): its text and where it starts on the line. */
  wordAtCursor(): { word: string; start: number } {
    const l = this.lines[this.row].slice(0, this.col);
    const m = /\S*$/.exec(l)!;
    return { word: m[0], start: m.index };
  }

  /** Replaces the word before the cursor (a completion). */
  replaceWord(start: number, replacement: string): void {
    const l = this.lines[this.row];
    this.lines[this.row] = l.slice(0, start) + replacement + l.slice(this.col);
    this.col = start + replacement.length;
  }
}

/** ↑/↓ through earlier prompts; what was being typed comes back after the newest. */
export class HistoryCursor {
  private index: number;
  private draft = "";

  constructor(private readonly entries: () => readonly string[]) {
    this.index = entries().length;
  }

  reset(): void {
    this.index = this.entries().length;
    this.draft = "";
  }

  /** The earlier prompt, or undefined at the oldest. */
  older(current: string): string | undefined {
    const list = this.entries();
    if (this.index === list.length) this.draft = current;
    if (this.index === 0) return undefined;
    this.index--;
    return list[this.index];
  }

  newer(): string | undefined {
    const list = this.entries();
    if (this.index >= list.length) return undefined;
    this.index++;
    return this.index === list.length ? this.draft : list[this.index];
  }
}
