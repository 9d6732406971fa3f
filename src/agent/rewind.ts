// Checkpoints and rewind for a session. Before each user turn (not in plan
// mode) the agent records the working tree in the shadow store
// (workspace/checkpoints.ts) and writes a `checkpoint` record naming the tree
// into the session log; when the turn ends it records the tree again. A
// rewind to prompt N restores:
//   code          the tree as it was just before prompt N was sent;
//   conversation  a new session, a copy of this one's records before prompt N
//                 (SessionLog.fork; this file is kept, so both branches resume);
//   both.
// Each rewind first records the tree as it is and writes a `rewind` record, so
// undoing a rewind is one more rewind: to the point "undo the rewind".
//
// Files changed outside rt (by hand, by another program) after the checkpoint
// are told apart from rt's own changes with the records: what rt left at the
// end of a turn ("after") against what the next turn found ("before"), and
// what the last turn left against the tree now. Those files are named and kept
// unless the user says to restore them too.
import type { Workspace } from "../workspace/workspace.js";
import { Checkpoints, CheckpointError, type RestoreResult, type TreeChange } from "../workspace/checkpoints.js";
import { parseUserCommandMessage } from "./userCommand.js";
import { now, readSessionRecords, SessionLog, sessionFile, type SessionRecord, type SessionState } from "./session.js";

/** One place a session can be rewound to. */
export interface RewindPoint {
  /** 1-based, in the order of the log (what `rt rewind --to N` takes). */
  n: number;
  kind: "prompt" | "undo";
  /** The prompt's text, or what the undo gives back. */
  text: string;
  /** A prompt's message index in the log (the conversation is cut just before it). */
  at?: number;
  /** The checkpoint restored for code (absent: none was taken, as in plan mode). */
  tree?: string;
  /** An undo of a rewind of the conversation: the session it came from. */
  from?: string;
  ts?: string;
  /** Position of the point's record in the log (where the walk for changes made outside rt starts). */
  record: number;
}

export type RewindMode = "both" | "code" | "conversation";

/** The environment switch that turns checkpoints off. */
export function checkpointsEnabled(env: NodeJS.ProcessEnv): boolean {
  return !/^(off|0|false|no)$/i.test(env.RT_CHECKPOINTS ?? "");
}

/**
 * The checkpoint function of a session's loop (LoopContext.checkpoint): the
 * store is opened on first use; a failure is said once (as a notice) and the
 * session goes on without checkpoints.
 */
export function sessionCheckpointer(
  ws: Workspace,
  log: SessionLog,
): (phase: "before" | "after", at: number) => string | undefined {
  let store: Checkpoints | undefined;
  let failed = false;
  return (phase, at) => {
    if (failed) return undefined;
    try {
      if (!store) {
        store = Checkpoints.open(ws.root, ws.env);
        pruneStore(ws, store, log);
      }
      const tree = store.snapshot();
      log.append({ t: "checkpoint", at, phase, tree, ts: now() });
      return undefined;
    } catch (e) {
      failed = true;
      return `no checkpoints in this session (rewinding code will not work): ${(e as Error).message}`;
    }
  };
}

/**
 * Once per session, when it first opens the store: checkpoints beyond the limits (age, count, size) are
 * forgotten, never those this session's records name (its prompts and rewinds can always go back). A
 * failure here costs only disk space: it is not said, and checkpoints go on.
 */
function pruneStore(ws: Workspace, store: Checkpoints, log: SessionLog): void {
  try {
    const protect = new Set<string>();
    if (log.file)
      for (const r of readSessionRecords(ws, log.file.split("/").pop()!)) {
        if (r.t === "checkpoint") protect.add(r.tree);
        else if (r.t === "rewind") {
          protect.add(r.before);
          protect.add(r.after);
        }
      }
    store.prune(protect);
  } catch {
    // Pruning is housekeeping; the next session tries again.
  }
}

function oneLine(s: string, max = 72): string {
  const l = s.replace(/\s+/g, " ").trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

/** The points a session's records can be rewound to, in log order. */
export function rewindPoints(records: readonly SessionRecord[]): RewindPoint[] {
  const before = new Map<number, { tree: string; record: number }>();
  records.forEach((r, k) => {
    if (r.t === "checkpoint" && r.phase === "before") before.set(r.at, { tree: r.tree, record: k });
  });
  const out: RewindPoint[] = [];
  records.forEach((r, k) => {
    // A prompt, or a command the user ran with `!` (checkpointed like a prompt; offered again as `!COMMAND`).
    const command =
      r.t === "message" && r.origin === "user_command" ? parseUserCommandMessage(r.message.content) : undefined;
    if (r.t === "message" && r.message.role === "user" && (!r.origin || command)) {
      const cp = before.get(r.i);
      out.push({
        n: out.length + 1,
        kind: "prompt",
        text: command ? `!${command.command}` : r.message.content,
        at: r.i,
        ...(cp ? { tree: cp.tree } : {}),
        ts: r.ts,
        record: cp?.record ?? k,
      });
    } else if (r.t === "rewind") {
      const what = r.from ? `the conversation of ${r.from} and the code` : "the code";
      out.push({
        n: out.length + 1,
        kind: "undo",
        text: `undo the rewind of ${r.ts.slice(11, 19)} (${what} as they were)`,
        tree: r.before,
        ...(r.from ? { from: r.from } : {}),
        ts: r.ts,
        record: k,
      });
    }
  });
  return out;
}

/** How a point reads in a list: `  3  fix the sign` (with a mark when it has no checkpoint). */
export function pointLabel(p: RewindPoint): string {
  return `${p.kind === "undo" ? "↶ " : ""}${oneLine(p.text)}${p.tree ? "" : " (no checkpoint: conversation only)"}`;
}

/** What a rewind of the code would do, worked out before anything changes. */
export interface CodePlan {
  store: Checkpoints;
  /** The tree now (recorded: what undoing the rewind gives back). */
  now: string;
  target: string;
  /** The files that differ from the checkpoint now. */
  changes: TreeChange[];
  /** Of those, the files changed outside rt since the checkpoint (by hand, by another program). */
  outside: string[];
}

/** The paths that changed between two trees. */
function changedPaths(store: Checkpoints, from: string, to: string): string[] {
  return from === to ? [] : store.changes(from, to).map((c) => c.path);
}

/**
 * Plans the code part of a rewind to `point`: records the tree now, lists
 * what differs from the checkpoint and which of those files were changed
 * outside rt after it (see the top of this file). CheckpointError when the
 * point has no checkpoint or the store lacks it.
 */
export function planCodeRewind(ws: Workspace, records: readonly SessionRecord[], point: RewindPoint): CodePlan {
  if (!point.tree)
    throw new CheckpointError(
      `prompt ${point.n} has no checkpoint (it ran in plan mode, or with checkpoints off); only its conversation can be rewound`,
    );
  const store = Checkpoints.open(ws.root, ws.env);
  if (!store.has(point.tree))
    throw new CheckpointError(
      `the checkpoint of point ${point.n} is missing from ${store.dir} (pruned as too old, or the cache was cleared)`,
    );
  const current = store.snapshot();
  const changes = store.changes(current, point.tree);
  const outside = new Set<string>();
  // What rt left (the end of a turn, a rewind's result), to compare with what came next.
  let left: string | undefined =
    point.kind === "undo" ? (records[point.record] as Extract<SessionRecord, { t: "rewind" }>).after : undefined;
  for (let k = point.record + (point.kind === "undo" ? 1 : 0); k < records.length; k++) {
    const r = records[k];
    if (r.t === "checkpoint") {
      if (r.phase === "before") {
        if (left) for (const p of changedPaths(store, left, r.tree)) outside.add(p);
        left = undefined;
      } else left = r.tree;
    } else if (r.t === "rewind") {
      if (left) for (const p of changedPaths(store, left, r.before)) outside.add(p);
      left = r.after;
    }
  }
  if (left) for (const p of changedPaths(store, left, current)) outside.add(p);
  const differing = new Set(changes.map((c) => c.path));
  return {
    store,
    now: current,
    target: point.tree,
    changes,
    outside: [...outside].filter((p) => differing.has(p)).sort(),
  };
}

/** Restores the plan's checkpoint; the files changed outside rt only when `includeOutside`. Returns what was done and the tree left. */
export function applyCodeRewind(
  ws: Workspace,
  plan: CodePlan,
  includeOutside: boolean,
): RestoreResult & { after: string } {
  const result = plan.store.restore(
    ws.writer,
    plan.now,
    plan.target,
    includeOutside ? new Set() : new Set(plan.outside),
  );
  return { ...result, after: plan.store.snapshot() };
}

/** What a rewind did, for the face to show. */
export interface RewindOutcome {
  /** The session to continue now (a new branch when the conversation was rewound). */
  session?: { log: SessionLog; state: SessionState };
  /** For a prompt point rewound in conversation: its text, offered for editing. */
  prompt?: string;
  code?: RestoreResult;
}

/**
 * Carries out a rewind of session `sessionId` (whose records are `records`)
 * to `point`, with the code plan made before (when the code is rewound).
 * The conversation is a new branch; a `rewind` record in the session that
 * continues makes the rewind undoable.
 */
export function performRewind(
  ws: Workspace,
  sessionId: string,
  point: RewindPoint,
  mode: RewindMode,
  plan: CodePlan | undefined,
  includeOutside: boolean,
  currentLog?: SessionLog,
): RewindOutcome {
  const out: RewindOutcome = {};
  let before = plan?.now;
  let after = plan?.now;
  if (plan && mode !== "conversation") {
    const done = applyCodeRewind(ws, plan, includeOutside);
    out.code = done;
    after = done.after;
  }
  if (mode !== "code") {
    if (point.kind === "prompt") {
      out.session = SessionLog.fork(ws, sessionId, point.at);
      out.prompt = point.text;
    } else if (point.from) out.session = SessionLog.fork(ws, point.from);
  }
  if (before === undefined) {
    // A conversation-only rewind still records the tree, so its undo has a point to go back to.
    try {
      before = after = Checkpoints.open(ws.root, ws.env).snapshot();
    } catch {
      before = undefined;
    }
  }
  const log = out.session?.log ?? currentLog;
  if (before && after) {
    const rec: SessionRecord = { t: "rewind", before, after, ...(out.session ? { from: sessionId } : {}), ts: now() };
    if (log) log.append(rec);
    else {
      const reopened = SessionLog.open(ws, sessionId);
      reopened.log.append(rec);
      reopened.log.close();
    }
  }
  return out;
}

/** The records of session `id` (the user's own; SessionError otherwise). */
export function sessionRecords(ws: Workspace, id: string): SessionRecord[] {
  const file = sessionFile(ws, id);
  return readSessionRecords(ws, file.split("/").pop()!);
}
