// The time the approximate matching tiers may spend on one edit. An exact
// match is found by a string search at any size; the looser tiers build keys
// for every line, fold and re-scan the text, and score windows, which on a
// file of megabytes took seconds for an old_string that is not there. On a
// text larger than EDIT_FUZZY_UNBOUNDED_CHARS they run against a budget of
// CPU time (not wall time, so that a loaded machine does not shrink it), and
// when it is spent the search stops: the edit is refused, saying how far the
// search got. Smaller texts always get the whole ladder, so what matches
// there does not depend on the machine.
import { EDIT_FUZZY_BUDGET_MS, EDIT_FUZZY_UNBOUNDED_CHARS } from "../base/limits.js";

/** Thrown by SearchBudget.check when the budget is spent; caught where the search started. */
export class SearchStopped extends Error {
  constructor(readonly spentMs: number) {
    super(`the search for approximate matches stopped after ${Math.round(spentMs)} ms`);
  }
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export class SearchBudget {
  private readonly start: number;
  /** Calls since the clock was last read: reading it costs a system call, so only every so often. */
  private calls = 0;
  constructor(readonly limitMs: number) {
    this.start = limitMs === Infinity ? 0 : cpuMs();
  }
  /** The budget for a text of `chars` characters: unbounded up to EDIT_FUZZY_UNBOUNDED_CHARS, or `limitMs`. */
  static forText(chars: number, limitMs?: number): SearchBudget {
    return new SearchBudget(limitMs ?? (chars > EDIT_FUZZY_UNBOUNDED_CHARS ? EDIT_FUZZY_BUDGET_MS : Infinity));
  }
  get bounded(): boolean {
    return this.limitMs !== Infinity;
  }
  spent(): number {
    return this.bounded ? cpuMs() - this.start : 0;
  }
  /** Throws SearchStopped once the budget is spent (reads the clock every `every` calls). */
  check(every = 1): void {
    if (!this.bounded) return;
    if (every > 1 && ++this.calls % every !== 0) return;
    const spent = cpuMs() - this.start;
    if (spent > this.limitMs) throw new SearchStopped(spent);
  }
}
