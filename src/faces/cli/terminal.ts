// What a terminal gets that a pipe does not: colour (unless NO_COLOR is set or
// TERM is dumb) and a progress line on standard error for operations that take
// more than a second. Nothing here is used when output goes to a file or a pipe,
// so scripts see plain text.

/** SGR sequences used by rt's output, as functions that return their text unchanged when colour is off. */
export interface Palette {
  path: (s: string) => string;
  lineNumber: (s: string) => string;
  match: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
  directory: (s: string) => string;
  link: (s: string) => string;
}

const sgr = (code: string) => (s: string) => (s === "" ? s : `\x1b[${code}m${s}\x1b[0m`);
const same = (s: string) => s;

export const COLOR: Palette = {
  path: sgr("35"),
  lineNumber: sgr("32"),
  match: sgr("1;31"),
  dim: sgr("2"),
  bold: sgr("1"),
  directory: sgr("1;34"),
  link: sgr("36"),
};

export const PLAIN: Palette = {
  path: same,
  lineNumber: same,
  match: same,
  dim: same,
  bold: same,
  directory: same,
  link: same,
};

/** Colour for a stream: only a terminal, and neither NO_COLOR (https://no-color.org) nor TERM=dumb. */
export function wantsColor(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb";
}

/** Shown after this long; updated this often. */
const PROGRESS_DELAY_MS = 1000;
const PROGRESS_TICK_MS = 500;

/**
 * One line on standard error, a terminal, saying what a long operation is doing
 * ("rt grep: searching: 12,345 matching lines so far (3 s)"), drawn only after
 * it has run for a second and erased before the result is printed.
 */
export class ProgressLine {
  private readonly started = Date.now();
  private message: string;
  private shown = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (s: string) => void,
    private readonly label: string,
    initial: string,
  ) {
    this.message = initial;
    this.timer = setInterval(() => this.draw(), PROGRESS_TICK_MS);
    this.timer.unref();
  }

  update(message: string): void {
    this.message = message;
  }

  private draw(): void {
    const elapsed = Date.now() - this.started;
    if (elapsed < PROGRESS_DELAY_MS) return;
    this.shown = true;
    this.write(`\r\x1b[2K${this.label}: ${this.message} (${Math.floor(elapsed / 1000)} s)`);
  }

  /** Stops and erases the line (before anything else is printed). */
  stop(): void {
    clearInterval(this.timer);
    if (this.shown) this.write("\r\x1b[2K");
    this.shown = false;
  }
}
