// Reads the user's lines for the REPL and for approval questions, from a
// terminal (with line editing and history) or from piped input. Lines that
// arrive before anyone asks (piped input) wait in a queue, so a question asked
// in the middle of a turn gets the next line, as a person typing would give it.
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ApprovalCallback } from "../agent/approval.js";
import { callPreview } from "./tui/callPreview.js";
import { TUI_APPROVAL_PREVIEW_LINES } from "../base/limits.js";

export class LineReader {
  readonly rl: readline.Interface;
  private readonly lines: string[] = [];
  private ended = false;
  private waiter: ((line: string | null) => void) | undefined;
  readonly terminal: boolean;

  constructor(
    input: Readable & { isTTY?: boolean },
    private readonly output: Writable,
  ) {
    this.terminal = input.isTTY === true;
    this.rl = readline.createInterface({ input, output, terminal: this.terminal, historySize: 200 });
    this.rl.on("line", (line) => {
      if (this.waiter) {
        const w = this.waiter;
        this.waiter = undefined;
        w(line);
      } else this.lines.push(line);
    });
    this.rl.on("close", () => {
      this.ended = true;
      const w = this.waiter;
      this.waiter = undefined;
      w?.(null);
    });
  }

  /** The next line (showing `prompt` first), or null at the end of input (Ctrl-D). */
  next(prompt: string): Promise<string | null> {
    if (!this.terminal) return this.nextPiped(prompt);
    if (this.lines.length) return Promise.resolve(this.lines.shift() as string);
    if (this.ended) return Promise.resolve(null);
    this.rl.setPrompt(prompt);
    this.rl.prompt();
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Piped input is not echoed by anyone: show the prompt and the line read, so the output reads as a transcript. */
  private async nextPiped(prompt: string): Promise<string | null> {
    let line: string | null;
    if (this.lines.length) line = this.lines.shift() as string;
    else if (this.ended) line = null;
    else line = await new Promise<string | null>((resolve) => (this.waiter = resolve));
    if (line !== null) this.output.write(`${prompt}${line}\n`);
    return line;
  }

  /**
   * Writes progress (`write` does it) without breaking a question waiting on
   * the terminal: the prompt line is cleared, the text goes above it, and the
   * prompt is drawn again with what was typed so far. Without a question
   * waiting (or on piped input) it is written as it is.
   */
  writeAbove(write: () => void): void {
    if (!this.terminal || !this.waiter) return write();
    this.output.write(process.env.TERM === "dumb" ? "\n" : "\r\x1b[2K");
    write();
    this.rl.prompt(true);
  }

  /**
   * Ends the question waiting for a line, if any, as the end of input would (its
   * asker gets null): Ctrl-C during an approval question interrupts the turn, so
   * the question must not go on waiting. What was typed of the line is dropped.
   */
  cancelPending(): boolean {
    const w = this.waiter;
    if (!w) return false;
    this.waiter = undefined;
    if (this.terminal) this.rl.write(null, { ctrl: true, name: "u" });
    w(null);
    return true;
  }

  close(): void {
    this.rl.close();
  }
}

/** y / n / a(lways), asked until the answer is one of them ("n REASON" tells the model why); the end of input answers no. */
export function askApproval(reader: LineReader, write: (s: string) => void): ApprovalCallback {
  return async (req) => {
    write(
      `\n${req.agent ? `[${req.agent}] ` : ""}rt wants to ${req.category === "edit" ? "edit" : req.category === "command" ? "run" : "use"}: ${req.summary}\n`,
    );
    // An edit shows its change before the question, as the full-screen UI does (removed -, added +).
    if (req.category === "edit") {
      const change = callPreview(req.args).filter((l) => l.tone !== "plain");
      for (const l of change.slice(0, TUI_APPROVAL_PREVIEW_LINES)) write(`  ${l.text}\n`);
      if (change.length > TUI_APPROVAL_PREVIEW_LINES)
        write(`  … ${change.length - TUI_APPROVAL_PREVIEW_LINES} more lines\n`);
    }
    for (;;) {
      const line = await reader.next(
        "Allow? [y]es / [n]o (n REASON tells the model why) / [a]lways for this session: ",
      );
      if (line === null) return "no";
      const a = line.trim();
      if (/^(y|yes)$/i.test(a)) return "yes";
      if (/^(a|always)$/i.test(a)) return "always";
      const no = /^(?:n|no)(?:$|[\s,:;-]+([\s\S]*))$/i.exec(a);
      if (no) return no[1]?.trim() ? { answer: "no", reason: no[1].trim() } : "no";
      write("Please answer y, n or a.\n");
    }
  };
}
