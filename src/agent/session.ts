// Sessions: one append-only JSONL file per conversation under `.rt/sessions/`.
// Every record is written with one write() as soon as it exists (text deltas
// included), so killing rt loses at most the record being written; nothing is
// ever rewritten. Compaction, /clear and pruning are records too: the file
// keeps the full history, and replaying it rebuilds the context the model sees.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import type { ChatMessage, ToolCall } from "./providers/types.js";
import { addUsage, zeroUsage, type AgentEvent, type Protocol, type TodoItem, type UsageTotals } from "./events.js";
import type { Workspace } from "../workspace/workspace.js";
import { isRefusal, type WriteHandle } from "../workspace/confinedFs.js";
import { SESSION_FILE_MAX_BYTES } from "../base/limits.js";

/** Where a message in the context came from, when it is not what its role says. */
export type MessageOrigin =
  /** A user message carrying the output of text-mode commands (the text protocol: fenced bash blocks of rt commands). */
  | "tool_output"
  /** The structured summary that replaced older history. */
  | "summary"
  /** Written by rt when a session is reopened after a kill: an answer cut off, or a tool call without result. */
  | "repair"
  /** A command the user ran at the prompt (`!COMMAND`) and its result (userCommand.ts). */
  | "user_command"
  /** Errors the model's edits introduced, found by the language server after it answered (editChecks.ts). */
  | "edit_check";

export type ProtocolChoice = Protocol | "auto";

export interface SessionHeader {
  t: "session";
  v: 1;
  id: string;
  created: string;
  root: string;
  model: string;
  protocol: ProtocolChoice;
  /** A subagent's run (a sidechain): the session and the `task` call that started it. */
  parent?: SubagentLink;
  /** A branch (a rewind, --fork-session): the session it was copied from, up to (not including) message `before`. */
  forkedFrom?: { session: string; before?: number };
  /** HMAC of the other fields with the user's state key: the file is rt's own (see isOwnHeader). */
  mac?: string;
}

/** What ties a subagent's log to its parent session. */
export interface SubagentLink {
  session: string;
  tool_use_id: string;
  subagent_type: string;
  description: string;
}

export type SessionRecord =
  | SessionHeader
  /** `i`: the message's index among all message records of the file. */
  | { t: "message"; i: number; message: ChatMessage; origin?: MessageOrigin; ts: string }
  /** Streamed text not yet part of a message: superseded by the next assistant message. */
  | { t: "delta"; kind: "text" | "reasoning"; delta: string }
  /** Token usage of one model request (and its cost when prices are configured). */
  | {
      t: "usage";
      usage: UsageTotals;
      cost?: number;
      model: string;
      ts: string /** A subagent's whole run, by its task call's id. */;
      subagent?: string;
    }
  /** These messages' contents were replaced in the context by a placeholder (the log keeps them). */
  | { t: "prune"; indices: number[]; placeholder: string; ts: string }
  /** The context became [summary] + the messages from `keep_from` on. */
  | { t: "compaction"; summary: string; keep_from: number; ts: string }
  /** The context was emptied (/clear): it starts again at message `next`. */
  | { t: "clear"; next: number; ts: string }
  | { t: "model"; model: string; ts: string }
  | { t: "protocol"; protocol: Protocol; ts: string }
  /** The approval mode changed (an accepted plan left plan mode). */
  | { t: "approval"; mode: string; ts: string }
  /**
   * A checkpoint of the working tree (workspace/checkpoints.ts), for the user turn whose prompt is
   * message `at`: taken just before the prompt was sent, and when the turn ended.
   */
  | { t: "checkpoint"; at: number; phase: "before" | "after"; tree: string; ts: string }
  /**
   * The code was rewound: `before` is the tree as it was just before (what undoing the rewind restores),
   * `after` what the rewind left; `from` the session the conversation was rewound from, when it was.
   */
  | { t: "rewind"; before: string; after: string; from?: string; ts: string }
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
  /** The todo list as todo_write last left it. */
  todos: TodoItem[];
}

export const SESSIONS_DIR = "sessions";
/** A session header line is short; the first this many bytes of a file hold it. */
const SESSION_HEADER_MAX_BYTES = 64 * 1024;
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

// File I/O of sessions goes through the workspace's confined writer: a session
// file is created with O_EXCL|O_NOFOLLOW (or reopened with O_NOFOLLOW) below
// `.rt/sessions/`, every directory on the way opened without following
// symlinks, and then only appended to through that descriptor. A session is
// rt's own only when its header carries the MAC of the user's state key
// (stateKey.ts): `--continue`, `--resume`, `rt sessions` and `rt export` ignore
// any other `.jsonl` file there (a repository's committed ones, planted ones).

/** The MAC context and text of a header: every field but `mac`, in order. */
function headerBody(header: SessionHeader): string {
  const { mac: _mac, ...rest } = header;
  return JSON.stringify(rest);
}

function signHeader(ws: Workspace, header: SessionHeader): SessionHeader {
  return { ...header, mac: ws.state.mac(`session:${header.id}`, headerBody(header)) };
}

/** Whether `rec` is a session header written by rt for this user (its MAC checks), for the file named `id`. */
export function isOwnHeader(ws: Workspace, rec: SessionRecord | undefined, id?: string): rec is SessionHeader {
  if (!rec || rec.t !== "session" || typeof rec.id !== "string") return false;
  if (id !== undefined && rec.id !== id) return false;
  return ws.state.macMatches(`session:${rec.id}`, headerBody(rec), rec.mac);
}

/** The append-only writer of one session file (memory only when `.rt/` state is off). */
export class SessionLog {
  private out: WriteHandle | undefined;
  private nextIndex: number;

  private constructor(
    readonly id: string,
    /** Absolute path of the JSONL file, undefined when state is off. */
    readonly file: string | undefined,
    nextIndex: number,
    out: WriteHandle | undefined,
  ) {
    this.nextIndex = nextIndex;
    this.out = out;
  }

  static create(ws: Workspace, model: string, protocol: ProtocolChoice): { log: SessionLog; state: SessionState } {
    const log = SessionLog.newFile(ws);
    return log.begin(ws, { t: "session", v: 1, id: log.id, created: now(), root: ws.root, model, protocol });
  }

  /**
   * A new session that starts as a copy of session `sourceId`'s records: all
   * of them, or those before message `before` (a rewind to the prompt that
   * message is). The source file is left as it is, so either branch can be
   * resumed. What a kill left unfinished in the copy is repaired as open() does.
   */
  static fork(ws: Workspace, sourceId: string, before?: number): { log: SessionLog; state: SessionState } {
    const file = sessionFile(ws, sourceId);
    const name = path.basename(file);
    const records = readSessionRecords(ws, name);
    const header = records[0];
    if (!isOwnHeader(ws, header, name.slice(0, -6)))
      throw new SessionError(`${file}: not an rt session of yours (no header signed with your state key)`);
    let end = records.length;
    if (before !== undefined) {
      end = records.findIndex((r) => r.t === "message" && r.i === before);
      if (end < 0) throw new SessionError(`session ${header.id} has no message ${before}`);
    }
    const kept = records.slice(1, end);
    const log = SessionLog.newFile(ws);
    const { mac: _mac, parent: _parent, forkedFrom: _forked, ...rest } = header;
    const forked: SessionHeader = {
      ...rest,
      id: log.id,
      created: now(),
      forkedFrom: { session: header.id, ...(before !== undefined ? { before } : {}) },
    };
    const signed = signHeader(ws, forked);
    log.append(signed);
    const copied: SessionRecord[] = [signed];
    for (const rec of kept) {
      log.append(rec);
      copied.push(rec);
      if (rec.t === "message") log.nextIndex = rec.i + 1;
    }
    for (const rec of repairRecords(copied)) {
      if (rec.t === "message") rec.i = log.nextIndex++;
      log.append(rec);
      copied.push(rec);
    }
    return { log, state: replay(copied) };
  }

  /** A fresh session file with a new id (in memory only when state is off or refused). */
  private static newFile(ws: Workspace): SessionLog {
    let id = newSessionId();
    let log: SessionLog | undefined;
    // Two sessions started in the same second may draw the same id: take another rather than append to the other's file.
    for (let attempt = 1; ws.state.ensure() && !log; attempt++) {
      try {
        const out = ws.state.create([SESSIONS_DIR, `${id}.jsonl`], { append: true, mode: 0o600, fsync: false });
        if (out) log = new SessionLog(id, ws.state.file(SESSIONS_DIR, `${id}.jsonl`), 0, out);
        else break;
      } catch (e) {
        // `.rt/sessions` that is a symlink (or not a directory): the session lives in memory only, like with state off.
        if (isRefusal(e)) break;
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw e;
        id = newSessionId();
      }
    }
    return log ?? new SessionLog(id, undefined, 0, undefined);
  }

  /**
   * The log of a subagent's run: `.rt/sessions/PARENT/CALL.jsonl`, next to the
   * parent's file (a directory, so listings of sessions and --continue never
   * take it for a session of its own), its header naming the parent and the
   * `task` call. In memory only when the parent's log is.
   */
  static createSidechain(
    ws: Workspace,
    parent: SessionLog,
    link: Omit<SubagentLink, "session">,
    model: string,
    protocol: ProtocolChoice,
  ): { log: SessionLog; state: SessionState } {
    const base = sidechainName(link.tool_use_id);
    let name = base;
    let log: SessionLog | undefined;
    // Call ids repeat (text mode numbers its calls per process, and a continued session starts again): take the next free name.
    for (let n = 2; parent.file && !log && n <= 100; n++) {
      try {
        const out = ws.state.create([SESSIONS_DIR, parent.id, `${name}.jsonl`], {
          append: true,
          mode: 0o600,
          fsync: false,
        });
        if (!out) break;
        log = new SessionLog(`${parent.id}/${name}`, ws.state.file(SESSIONS_DIR, parent.id, `${name}.jsonl`), 0, out);
      } catch (e) {
        // A symlink on the way, or anything but a name taken: this run is kept in memory only.
        if (isRefusal(e) || (e as NodeJS.ErrnoException).code !== "EEXIST") break;
        name = `${base}-${n}`;
      }
    }
    log ??= new SessionLog(`${parent.id}/${name}`, undefined, 0, undefined);
    return log.begin(ws, {
      t: "session",
      v: 1,
      id: log.id,
      created: now(),
      root: ws.root,
      model,
      protocol,
      parent: { session: parent.id, ...link },
    });
  }

  private begin(ws: Workspace, header: SessionHeader): { log: SessionLog; state: SessionState } {
    const signed = signHeader(ws, header);
    this.append(signed);
    return { log: this, state: replay([signed]) };
  }

  /** Reopens a session for appending, repairing what a kill left unfinished. */
  static open(ws: Workspace, id: string): { log: SessionLog; state: SessionState } {
    const file = sessionFile(ws, id);
    const name = path.basename(file);
    const records = readSessionRecords(ws, name);
    const header = records[0];
    if (!isOwnHeader(ws, header, name.slice(0, -6)))
      throw new SessionError(`${file}: not an rt session of yours (no header signed with your state key)`);
    const log = new SessionLog(
      header.id,
      file,
      records.filter((r) => r.t === "message").length,
      ws.state.openAppend([SESSIONS_DIR, name]),
    );
    for (const rec of repairRecords(records)) {
      if (rec.t === "message") rec.i = log.nextIndex++;
      log.append(rec);
      records.push(rec);
    }
    return { log, state: replay(records) };
  }

  /**
   * Writes one record now (one write() call: a kill cannot leave half of an
   * earlier record). When a write fails (a full disk, a quota), the log stops
   * there: the conversation goes on in memory, and what the file holds still
   * reads back (a torn last line is skipped). takeWriteError says so, once.
   */
  append(rec: SessionRecord): void {
    if (!this.out) return;
    try {
      this.out.write(`${JSON.stringify(rec)}\n`);
    } catch (e) {
      this.writeError = (e as Error).message;
      this.out.close();
      this.out = undefined;
    }
  }

  private writeError: string | undefined;
  private writeErrorTaken = false;

  /** Why the log stopped being written, the first time it is asked after that happened. */
  takeWriteError(): string | undefined {
    if (this.writeError === undefined || this.writeErrorTaken) return undefined;
    this.writeErrorTaken = true;
    return `the session log ${this.file ?? ""} could not be written (${this.writeError}); the rest of this session is not saved`;
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
    this.out?.close();
    this.out = undefined;
  }
}

export class SessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionError";
  }
}

/** The file of session `id` (one of the user's own sessions); a unique prefix of an id is enough. */
export function sessionFile(ws: Workspace, id: string): string {
  const dir = ws.state.file(SESSIONS_DIR);
  if (!/^[\w.-]+$/.test(id)) throw new SessionError(`"${id}" is not a session id; rt sessions lists them`);
  const own = listSessionFiles(ws).filter((f) => hasOwnHeader(ws, f.id));
  const exact = own.find((f) => f.id === id);
  if (exact) return exact.file;
  const names = own.filter((f) => f.id.startsWith(id)).map((f) => f.id);
  if (names.length === 1) return path.join(dir, `${names[0]}.jsonl`);
  if (names.length > 1)
    throw new SessionError(`"${id}" matches ${names.length} sessions (${names.join(", ")}); give more of the id`);
  throw new SessionError(`no session "${id}" in ${dir}; rt sessions lists them`);
}

/** The id of the most recently written session, if any (files whose first line is not a header rt signed for this user are not sessions). */
export function latestSessionId(ws: Workspace): string | undefined {
  return listSessionFiles(ws).find((f) => hasOwnHeader(ws, f.id))?.id;
}

/** Reads the first line of `.rt/sessions/<id>.jsonl` (no symlink followed) and checks its header. */
function hasOwnHeader(ws: Workspace, id: string): boolean {
  const bytes = ws.state.readPrefix([SESSIONS_DIR, `${id}.jsonl`], SESSION_HEADER_MAX_BYTES);
  if (!bytes) return false;
  const nl = bytes.indexOf(10);
  try {
    return isOwnHeader(
      ws,
      JSON.parse(bytes.subarray(0, nl === -1 ? bytes.length : nl).toString("utf8")) as SessionRecord,
      id,
    );
  } catch {
    return false;
  }
}

/** The regular `.jsonl` files of `.rt/sessions/` (never through a symlink), most recent first. */
function listSessionFiles(ws: Workspace): Array<{ id: string; file: string; mtimeMs: number }> {
  return ws.state
    .listFiles(SESSIONS_DIR)
    .filter((f) => f.name.endsWith(".jsonl"))
    .map((f) => ({ id: f.name.slice(0, -6), file: ws.state.file(SESSIONS_DIR, f.name), mtimeMs: f.mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || b.id.localeCompare(a.id));
}

/** A file name for a tool call id (ids are the provider's: anything but letters, digits, _ . - is replaced, long ones hashed). */
export function sidechainName(toolUseId: string): string {
  const clean = toolUseId.replace(/[^\w.-]/g, "_").replace(/^\.+/, "_");
  return clean.length > 0 && clean.length <= 80
    ? clean
    : crypto.createHash("sha256").update(toolUseId).digest("hex").slice(0, 32);
}

/** The subagent runs of a session: each sidechain's records, when its header is rt's own and names this session. */
export function readSidechains(
  ws: Workspace,
  sessionId: string,
): Array<{ link: SubagentLink; records: SessionRecord[] }> {
  const out: Array<{ link: SubagentLink; records: SessionRecord[]; created: string }> = [];
  for (const f of ws.state.listFiles(SESSIONS_DIR, sessionId)) {
    if (!f.name.endsWith(".jsonl")) continue;
    const bytes = ws.state.readBytes([SESSIONS_DIR, sessionId, f.name], SESSION_FILE_MAX_BYTES);
    if (!bytes) continue;
    const records = parseRecords(bytes);
    const header = records[0];
    if (!isOwnHeader(ws, header, `${sessionId}/${f.name.slice(0, -6)}`) || header.parent?.session !== sessionId)
      continue;
    out.push({ link: header.parent, records, created: header.created });
  }
  return out.sort((a, b) => a.created.localeCompare(b.created)).map(({ link, records }) => ({ link, records }));
}

/** The records of `.rt/sessions/<name>` read through the confined reader (empty when it is missing or refused). */
export function readSessionRecords(ws: Workspace, name: string): SessionRecord[] {
  const bytes = ws.state.readBytes([SESSIONS_DIR, name], SESSION_FILE_MAX_BYTES);
  return bytes ? parseRecords(bytes) : [];
}

/** Parses a session file; a torn last line (a kill mid-write) is skipped. */
export function readRecords(file: string): SessionRecord[] {
  return parseRecords(fs.readFileSync(file));
}

/**
 * One record per line, decoded line by line from the bytes: a session file may
 * be larger than the longest string V8 can make (about 512 MiB), so the whole
 * file is never turned into one string.
 */
function parseRecords(bytes: Buffer): SessionRecord[] {
  const out: SessionRecord[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    const line = bytes.toString("utf8", start, end);
    start = end + 1;
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
    const message: ChatMessage = {
      role: "assistant",
      content: text ? `${text}\n\n${INTERRUPTED_NOTE}` : INTERRUPTED_NOTE,
      ...(reasoning ? { reasoning } : {}),
      finish: "error",
    };
    fixes.push({ t: "message", i: -1, message, origin: "repair", ts });
  }
  for (const c of open) {
    fixes.push({
      t: "message",
      i: -1,
      message: { role: "tool", toolCallId: c.id, name: c.name, content: NO_RESULT_NOTE, isError: true },
      origin: "repair",
      ts,
    });
  }
  return fixes;
}

/** Rebuilds the context, totals and settings from a session's records. */
export function replay(records: SessionRecord[]): SessionState {
  const header = records[0] as SessionHeader;
  const state: SessionState = { header, context: [], messages: [], model: header.model, usage: zeroUsage(), todos: [] };
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
        state.context = state.context.map((e) =>
          e.i !== undefined && set.has(e.i) ? { ...e, message: withContent(e.message, r.placeholder) } : e,
        );
        break;
      }
      case "compaction":
        state.context = [
          summaryEntry(r.summary),
          ...state.context.filter((e) => e.i !== undefined && e.i >= r.keep_from),
        ];
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
      case "event":
        // Only the main session's own list: a subagent's events are in its own log.
        if (r.event.type === "todos") state.todos = r.event.todos;
        break;
      default:
        break;
    }
  }
  return state;
}

export const SUMMARY_PREFIX =
  "Summary of the earlier part of this session (older messages were compacted; this replaces them):\n\n";

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
    // The header first (its first 64 KiB): a file rt did not sign is never read whole.
    if (!hasOwnHeader(ws, f.id)) continue;
    const records = readSessionRecords(ws, `${f.id}.jsonl`);
    const header = records[0];
    if (!isOwnHeader(ws, header, f.id)) continue;
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
