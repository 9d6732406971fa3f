// Sessions: one append-only JSONL file per conversation under `.rt/sessions/`.
// Every record is written with one write() as soon as it exists (text deltas
// included), so killing rt loses at most the record being written; nothing is
// ever rewritten. Compaction, /clear and pruning are records too: the file
// keeps the full history, and replaying it rebuilds the context the model sees.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import type { ChatMessage, ToolCall } from "./providers/types.js";
import { addUsage, zeroUsage, type AgentEvent, type Protocol, type UsageTotals } from "./events.js";
import type { Workspace } from "../workspace/workspace.js";

/** Where a message in the context came from, when it is not what its role says. */
export type MessageOrigin =
  /** A user message carrying the output of text-mode commands (seed 000's protocol). */
  | "tool_output"
  /** The structured summary that replaced older history. */
  | "summary"
  /** Written by rt when a session is reopened after a kill: an answer cut off, or a tool call without result. */
  | "repair";

export type ProtocolChoice = Protocol | "auto";

export interface SessionHeader {
  t: "session";
  v: 1;
  id: string;
  created: string;
  root: string;
  model: string;
  protocol: ProtocolChoice;
}

export type SessionRecord =
  | SessionHeader
  /** `i`: the message's index among all message records of the file. */
  | { t: "message"; i: number; message: ChatMessage; origin?: MessageOrigin; ts: string }
  /** Streamed text not yet part of a message: superseded by the next assistant message. */
  | { t: "delta"; kind: "text" | "reasoning"; delta: string }
  /** Token usage of one model request (and its cost when prices are configured). */
  | { t: "usage"; usage: UsageTotals; cost?: number; model: string; ts: string }
  /** These messages' contents were replaced in the context by a placeholder (the log keeps them). */
  | { t: "prune"; indices: number[]; placeholder: string; ts: string }
  /** The context became [summary] + the messages from `keep_from` on. */
  | { t: "compaction"; summary: string; keep_from: number; ts: string }
  /** The context was emptied (/clear): it starts again at message `next`. */
  | { t: "clear"; next: number; ts: string }
  | { t: "model"; model: string; ts: string }
  | { t: "protocol"; protocol: Protocol; ts: string }
  | { t: "event"; event: AgentEvent; ts: string };

/** One message of the context, with its index in the log (absent for the summary). */
export interface ContextEntry {
  i?: number;
  message: ChatMessage;
  origin?: MessageOrigin;
}

/** A session rebuilt from its log. */
export interface SessionState {
  header: SessionHeader;
  /** What the model sees next: summary (if any) + the messages after it, pruned where pruned. */
  context: ContextEntry[];
  /** Every message ever written, in order (the full history). */
  messages: ContextEntry[];
  model: string;
  /** Set once the session switched protocol (auto falling back to text). */
  protocol?: Protocol;
  usage: UsageTotals;
  cost?: number;
}

export const SESSIONS_DIR = "sessions";
const INTERRUPTED_NOTE = "[interrupted: this answer was cut off when rt stopped]";
const NO_RESULT_NOTE =
  "interrupted: rt stopped before this call finished, so its result is unknown; check its effects (read the file, git diff) before repeating it";

export function now(): string {
  return new Date().toISOString();
}

export function newSessionId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${crypto.randomBytes(2).toString("hex")}`;
}

function sessionsDir(ws: Workspace): string | undefined {
  if (!ws.state.ensure()) return undefined;
  const dir = ws.state.file(SESSIONS_DIR);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The append-only writer of one session file (memory only when `.rt/` state is off). */
export class SessionLog {
  private fd: number | undefined;
  private nextIndex: number;

  private constructor(
    readonly id: string,
    /** Absolute path of the JSONL file, undefined when state is off. */
    readonly file: string | undefined,
    nextIndex: number,
    /** "a" to append to an existing session; "wx" for a new one (never another session's file). */
    flag: "a" | "wx" = "a",
  ) {
    this.nextIndex = nextIndex;
    if (file) this.fd = fs.openSync(file, flag);
  }

  static create(ws: Workspace, model: string, protocol: ProtocolChoice): { log: SessionLog; state: SessionState } {
    const dir = sessionsDir(ws);
    let id = newSessionId();
    let log: SessionLog | undefined;
    // Two sessions started in the same second may draw the same id: take another rather than append to the other's file.
    for (let attempt = 1; dir && !log; attempt++) {
      try {
        log = new SessionLog(id, path.join(dir, `${id}.jsonl`), 0, "wx");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw e;
        id = newSessionId();
      }
    }
    log ??= new SessionLog(id, undefined, 0);
    const header: SessionHeader = { t: "session", v: 1, id, created: now(), root: ws.root, model, protocol };
    log.append(header);
    return { log, state: replay([header]) };
  }

  /** Reopens a session for appending, repairing what a kill left unfinished. */
  static open(ws: Workspace, id: string): { log: SessionLog; state: SessionState } {
    const file = sessionFile(ws, id);
    const records = readRecords(file);
    const header = records[0];
    if (!header || header.t !== "session") throw new SessionError(`${file}: not an rt session (no header line)`);
    const log = new SessionLog(header.id, file, records.filter((r) => r.t === "message").length);
    for (const rec of repairRecords(records)) {
      if (rec.t === "message") rec.i = log.nextIndex++;
      log.append(rec);
      records.push(rec);
    }
    return { log, state: replay(records) };
  }

  /** Writes one record now (one write() call: a kill cannot leave half of an earlier record). */
  append(rec: SessionRecord): void {
    if (this.fd === undefined) return;
    fs.writeSync(this.fd, `${JSON.stringify(rec)}\n`);
  }

  /** Appends a message and returns its index. */
  appendMessage(message: ChatMessage, origin?: MessageOrigin): number {
    const i = this.nextIndex++;
    this.append({ t: "message", i, message, ...(origin ? { origin } : {}), ts: now() });
    return i;
  }

  get messageCount(): number {
    return this.nextIndex;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

export class SessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionError";
  }
}

/** The file of session `id`; a unique prefix of an id is enough. */
export function sessionFile(ws: Workspace, id: string): string {
  const dir = ws.state.file(SESSIONS_DIR);
  if (!/^[\w.-]+$/.test(id)) throw new SessionError(`"${id}" is not a session id; rt sessions lists them`);
  const exact = path.join(dir, `${id}.jsonl`);
  if (fs.existsSync(exact)) return exact;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl") && n.startsWith(id));
  } catch {
    /* no sessions yet */
  }
  if (names.length === 1) return path.join(dir, names[0]);
  if (names.length > 1) throw new SessionError(`"${id}" matches ${names.length} sessions (${names.map((n) => n.slice(0, -6)).join(", ")}); give more of the id`);
  throw new SessionError(`no session "${id}" in ${dir}; rt sessions lists them`);
}

/** The id of the most recently written session, if any (files that do not start with a session header are not sessions). */
export function latestSessionId(ws: Workspace): string | undefined {
  return listSessionFiles(ws).find((f) => startsWithSessionHeader(f.file))?.id;
}

function startsWithSessionHeader(file: string): boolean {
  try {
    const fd = fs.openSync(file, "r");
    try {
      const buf = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      const first = buf.subarray(0, n).toString("utf8").split("\n")[0];
      return (JSON.parse(first) as { t?: unknown }).t === "session";
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

function listSessionFiles(ws: Workspace): Array<{ id: string; file: string; mtimeMs: number }> {
  const dir = ws.state.file(SESSIONS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return names
    .map((n) => {
      const file = path.join(dir, n);
      return { id: n.slice(0, -6), file, mtimeMs: fs.statSync(file).mtimeMs };
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs || b.id.localeCompare(a.id));
}

/** Parses a session file; a torn last line (a kill mid-write) is skipped. */
export function readRecords(file: string): SessionRecord[] {
  const text = fs.readFileSync(file, "utf8");
  const out: SessionRecord[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line) as SessionRecord);
    } catch {
      /* a line cut by a kill: everything before it is intact */
    }
  }
  return out;
}

/**
 * What must be appended so that a log cut short by a kill reads as a valid
 * conversation: the streamed text of an unfinished answer becomes an assistant
 * message, and tool calls that never got a result get one saying so.
 */
export function repairRecords(records: SessionRecord[]): SessionRecord[] {
  const fixes: SessionRecord[] = [];
  let text = "";
  let reasoning = "";
  let open: ToolCall[] = [];
  for (const r of records) {
    if (r.t === "delta") {
      if (r.kind === "text") text += r.delta;
      else reasoning += r.delta;
    } else if (r.t === "message") {
      if (r.message.role === "assistant") {
        text = reasoning = "";
        open = [...(r.message.toolCalls ?? [])];
      } else if (r.message.role === "tool") {
        const id = r.message.toolCallId;
        open = open.filter((c) => c.id !== id);
      } else {
        text = reasoning = "";
      }
    }
  }
  const ts = now();
  if (text || reasoning) {
    const message: ChatMessage = { role: "assistant", content: text ? `${text}\n\n${INTERRUPTED_NOTE}` : INTERRUPTED_NOTE, ...(reasoning ? { reasoning } : {}), finish: "error" };
    fixes.push({ t: "message", i: -1, message, origin: "repair", ts });
  }
  for (const c of open) {
    fixes.push({ t: "message", i: -1, message: { role: "tool", toolCallId: c.id, name: c.name, content: NO_RESULT_NOTE, isError: true }, origin: "repair", ts });
  }
  return fixes;
}

/** Rebuilds the context, totals and settings from a session's records. */
export function replay(records: SessionRecord[]): SessionState {
  const header = records[0] as SessionHeader;
  const state: SessionState = { header, context: [], messages: [], model: header.model, usage: zeroUsage() };
  for (const r of records) {
    switch (r.t) {
      case "message": {
        const entry: ContextEntry = { i: r.i, message: r.message, ...(r.origin ? { origin: r.origin } : {}) };
        state.messages.push(entry);
        state.context.push({ ...entry });
        break;
      }
      case "usage":
        state.usage = addUsage(state.usage, r.usage);
        if (r.cost !== undefined) state.cost = (state.cost ?? 0) + r.cost;
        break;
      case "prune": {
        const set = new Set(r.indices);
        state.context = state.context.map((e) => (e.i !== undefined && set.has(e.i) ? { ...e, message: withContent(e.message, r.placeholder) } : e));
        break;
      }
      case "compaction":
        state.context = [summaryEntry(r.summary), ...state.context.filter((e) => e.i !== undefined && e.i >= r.keep_from)];
        break;
      case "clear":
        state.context = [];
        break;
      case "model":
        state.model = r.model;
        break;
      case "protocol":
        state.protocol = r.protocol;
        break;
      default:
        break;
    }
  }
  return state;
}

export const SUMMARY_PREFIX = "Summary of the earlier part of this session (older messages were compacted; this replaces them):\n\n";

export function summaryEntry(summary: string): ContextEntry {
  return { message: { role: "user", content: `${SUMMARY_PREFIX}${summary}` }, origin: "summary" };
}

/** The same message with other content (tool outputs and text-mode outputs are what pruning replaces). */
export function withContent(m: ChatMessage, content: string): ChatMessage {
  return { ...m, content } as ChatMessage;
}

export interface SessionSummary {
  id: string;
  file: string;
  created: string;
  updated: string;
  model: string;
  /** Prompts typed by the user. */
  prompts: number;
  firstPrompt: string;
  usage: UsageTotals;
  cost?: number;
}

/** Every session of the workspace, most recent first. */
export function listSessions(ws: Workspace): SessionSummary[] {
  const out: SessionSummary[] = [];
  for (const f of listSessionFiles(ws)) {
    let records: SessionRecord[];
    try {
      records = readRecords(f.file);
    } catch {
      continue;
    }
    const header = records[0];
    if (!header || header.t !== "session") continue;
    const state = replay(records);
    const prompts = state.messages.filter((m) => m.message.role === "user" && !m.origin);
    out.push({
      id: header.id,
      file: f.file,
      created: header.created,
      updated: new Date(f.mtimeMs).toISOString(),
      model: state.model,
      prompts: prompts.length,
      firstPrompt: prompts[0]?.message.content ?? "",
      usage: state.usage,
      ...(state.cost !== undefined ? { cost: state.cost } : {}),
    });
  }
  return out;
}
