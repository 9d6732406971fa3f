// The history one agent loop works on: the context the model sees next, and
// the session log every message and event is written to first. A subagent has
// its own (its own log file, an empty context): the parent's is never shared.
import type { ChatMessage, Usage } from "./providers/types.js";
import { now, type ContextEntry, type MessageOrigin, type SessionLog } from "./session.js";

export class History {
  /** The provider's token count after the last request, and the context length it covered (undefined: estimate). */
  reported: { tokens: number; length: number } | undefined;

  constructor(
    readonly log: SessionLog,
    /** What the model sees next: replaced by compaction and /clear, appended to otherwise. */
    public context: ContextEntry[] = [],
  ) {}

  /** Appends a message to the log and the context. */
  add(message: ChatMessage, origin?: MessageOrigin): void {
    const i = this.log.appendMessage(message, origin);
    this.context.push({ i, message, ...(origin ? { origin } : {}) });
  }

  /** Replaces the context (pruning, compaction); the provider's last count no longer applies. */
  replace(context: ContextEntry[]): void {
    this.context = context;
    this.reported = undefined;
  }

  /** Empties the context (/clear); the log keeps the history. */
  clear(): void {
    this.replace([]);
    this.log.append({ t: "clear", next: this.log.messageCount, ts: now() });
  }

  /** Remembers the provider's count for the context as it is now (after the answer was added). */
  noteReported(usage: Usage | undefined): void {
    this.reported = usage ? { tokens: usage.inputTokens + usage.outputTokens, length: this.context.length } : undefined;
  }
}
