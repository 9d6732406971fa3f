// The language-server checks of a loop's edits, which finish after the edit answered (the policy's
// editCheckLater: the edit does not wait for the server). A check starts when the loop's next model
// request is on its way (begin), so the server works while the model thinks. What a check found reaches the model
// once: appended to the next tool result made after it finished, or, when the model answers
// without calling anything first, in one more message that continues the turn (only when an edit
// introduced errors; turn.ts). Each loop (a subagent's too) has its own.
import type { EditCheck } from "../tools/policy.js";

interface Entry {
  subject: string;
  /** Starts the check; undefined once started. */
  start?: () => Promise<EditCheck | undefined>;
  settled: boolean;
  found?: EditCheck;
}

/** A finished check's report, the edit named. */
export interface EditReport {
  errors: number;
  text: string;
}

export class EditChecks {
  private entries: Entry[] = [];
  private running = new Set<Promise<void>>();

  /** A check of the edit `subject` ("edit call call_3"), waiting to be started (begin). */
  add(subject: string, start: () => Promise<EditCheck | undefined>): void {
    this.entries.push({ subject, start, settled: false });
  }

  /**
   * Starts the checks added since the last call, in the order of their edits. The loop calls it when
   * its next model request is on its way: the language server then works while the model thinks,
   * not while rt answers the edit and sends that request, on the same cores.
   */
  begin(): void {
    for (const entry of this.entries) {
      if (!entry.start) continue;
      const start = entry.start;
      entry.start = undefined;
      this.track(entry, start);
    }
  }

  private track(entry: Entry, start: () => Promise<EditCheck | undefined>): void {
    let check: Promise<EditCheck | undefined>;
    try {
      check = start();
    } catch {
      check = Promise.resolve(undefined);
    }
    const done: Promise<void> = check
      .then(
        (found) => {
          if (found) entry.found = found;
        },
        () => undefined,
      )
      .finally(() => {
        entry.settled = true;
        this.running.delete(done);
      });
    this.running.add(done);
  }

  /** The reports of the checks finished so far, in the order of the edits; each is given out once. */
  take(): EditReport[] {
    const finished = this.entries.filter((e) => e.settled);
    if (finished.length === 0) return [];
    this.entries = this.entries.filter((e) => !e.settled);
    return finished.flatMap((e) => (e.found ? [{ errors: e.found.errors, text: e.found.report(e.subject) }] : []));
  }

  /** Whether a check is waiting to start, running, or finished with its report not given out yet. */
  get waiting(): boolean {
    return this.entries.length > 0;
  }

  /** Whether a check waits to be started (begin). */
  get unstarted(): boolean {
    return this.entries.some((e) => e.start !== undefined);
  }

  /**
   * Starts the checks not started yet and resolves when every check added so far has finished (each
   * is bounded by the edit-diagnostics timeouts), or on abort.
   */
  async settled(signal?: AbortSignal): Promise<void> {
    this.begin();
    if (this.running.size === 0 || signal?.aborted) return;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      while (this.running.size > 0 && !signal?.aborted) await Promise.race([Promise.all(this.running), aborted]);
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** A tool result with the reports of finished checks after it. */
export function withReports(output: string, reports: EditReport[]): string {
  return reports.length ? `${output.trimEnd()}\n\n${reports.map((r) => r.text).join("\n\n")}` : output;
}

/** The message that tells the model, after it answered, of the errors its edits introduced. */
export function lateReportMessage(reports: EditReport[]): string {
  const found = reports.map((r) => r.text).join("\n\n");
  return `[rt] The language server finished checking your edits after your answer:\n\n${found}`;
}

/** What the user is shown when that message is sent. */
export function lateReportNotice(reports: EditReport[]): string {
  const found = reports.map((r) => r.text).join("\n");
  return `the language server found errors the model's edits introduced; the model is told:\n${found}`;
}
