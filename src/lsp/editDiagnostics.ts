// After an edit, the errors it introduced, from the file's language server
// (started on the first edit when edit diagnostics are on: OpenCode's behaviour): the model sees the type error it
// just caused. Kept apart from the edit engine, in two ways:
//   - waiting (the CLI, MCP, ACP, the library): the policy calls `before` ahead of an editing tool and
//     `after` with its result, which carries the errors;
//   - in the background (the agent): the policy takes the file's text before the edit (`textBefore`), and
//     once it is written `checkLater` compares the server's errors for the text before and after while the
//     agent goes on; the checks of one file run in order, each starting from what the previous one left
//     (its "after" errors are the next one's "before" when the texts are equal, so the server is asked once).
// Only new errors are reported (compared by message and code, not by line, since the edit moves
// lines), at most EDIT_DIAGNOSTICS_MAX_LINES of them.
import type { Workspace } from "../workspace/workspace.js";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { existingLspManager, lspManager, type LspManager } from "./manager.js";
import { diagnosticEntry, diagnosticLine } from "./format.js";
import {
  EDIT_CHECK_QUIET_MS,
  EDIT_CHECK_SETTLE_MS,
  EDIT_DIAGNOSTICS_MAX_LINES,
  EDIT_DIAGNOSTICS_TIMEOUT_MS,
} from "../base/limits.js";

/** What an editing tool returns, as far as this hook reads it (tools/types.ts's ToolResult; services do not import tools). */
interface EditResult {
  success: boolean;
  output: string;
  [metadata: string]: unknown;
}

export interface Baseline {
  rel: string;
  errors: Diagnostic[];
  /** The server did not start in time: the edit's result says so instead of listing errors. */
  notReady?: string;
}

function errorsOf(list: Diagnostic[]): Diagnostic[] {
  return list.filter((d) => (d.severity ?? 1) === 1);
}

const key = (d: Diagnostic) => `${d.code ?? ""}\0${d.message}`;

type Running = NonNullable<ReturnType<LspManager["runningFor"]>>;

/** An edit whose errors were not checked because the server was not ready: the note that says so. */
function notReadyNote(server: string, startMs: number, subject: string): string {
  const whose = subject === "this edit" ? "this edit's errors were" : `the errors of ${subject} were`;
  const ready = `the ${server} language server was not ready within ${startMs / 1000} s`;
  return `(${ready}; ${whose} not checked: lsp diagnostics checks the file)`;
}

/**
 * The server for `rel`, started now when none runs (edit diagnostics are on), if it is ready
 * within the manager's editStartTimeoutMs (EDIT_DIAGNOSTICS_START_TIMEOUT_MS unless configured); else why not. A server still starting goes on
 * starting, for the next edit.
 */
async function serverReady(
  manager: LspManager,
  rel: string,
): Promise<{ running?: Running; notReady?: (subject: string) => string }> {
  const running = manager.runningFor(rel);
  if (running) return { running };
  const spec = manager.specFor(rel);
  if (!spec) return {};
  const starting = manager.serverFor(rel);
  starting.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const startMs = manager.editStartTimeoutMs;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), startMs);
  });
  try {
    const won = await Promise.race([starting, late]);
    if (won === "late") {
      manager.detachStarting(rel);
      return { notReady: (subject) => notReadyNote(spec.name, startMs, subject) };
    }
    return { running: manager.runningFor(rel) };
  } catch {
    return {}; // a server that cannot start here: the lsp tool says why when asked
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The file's errors before the edit, when edit diagnostics are on (starting the file's server
 * on the first edit); else undefined.
 */
export async function before(workspace: Workspace, path: unknown, faceDefault: boolean): Promise<Baseline | undefined> {
  if (typeof path !== "string") return undefined;
  const manager = existingLspManager(workspace) ?? lspManager(workspace);
  if (!manager.editDiagnostics(faceDefault)) return undefined;
  let r;
  try {
    r = workspace.resolve(path);
  } catch {
    return undefined;
  }
  if (!r.exists) return undefined;
  const { running, notReady } = await serverReady(manager, r.rel);
  if (notReady) return { rel: r.rel, errors: [], notReady: notReady("this edit") };
  if (!running) return undefined;
  try {
    const text = workspace.writer.readFile(r.rel)?.toString("utf8");
    if (text === undefined) return undefined;
    return { rel: r.rel, errors: await errorsFor(running, r.abs, text) };
  } catch {
    return undefined; // no baseline, no report: an edit never fails for its diagnostics
  }
}

/** The errors the server reports for `text` as the file's content (it is told first), waited for up to `timeoutMs`. */
async function errorsFor(
  running: Running,
  abs: string,
  text: string,
  wait?: { timeoutMs: number; settleMs: number; quietMs: number },
): Promise<Diagnostic[]> {
  const ext = abs.slice(abs.lastIndexOf(".")).toLowerCase();
  await running.client.sync(abs, text, running.spec.languageId(ext));
  return errorsOf(
    await (wait
      ? running.client.diagnosticsOf(abs, wait.timeoutMs, wait)
      : running.client.diagnosticsOf(abs, EDIT_DIAGNOSTICS_TIMEOUT_MS)),
  );
}

/** How a check in the background waits for diagnostics (checkLater). */
function laterWait(manager: LspManager) {
  return { timeoutMs: manager.requestTimeoutMs, settleMs: EDIT_CHECK_SETTLE_MS, quietMs: EDIT_CHECK_QUIET_MS };
}

/** The errors of `now` that `old` did not have: a multiset difference (one there before, anywhere, is not new). */
function newErrors(old: Diagnostic[], now: Diagnostic[]): Diagnostic[] {
  const left = new Map<string, number>();
  for (const d of old) left.set(key(d), (left.get(key(d)) ?? 0) + 1);
  return now.filter((d) => {
    const n = left.get(key(d)) ?? 0;
    if (n > 0) {
      left.set(key(d), n - 1);
      return false;
    }
    return true;
  });
}

/**
 * The lines that report `introduced`, the first naming the edit (`subject`: "this edit", "edit call call_3");
 * `fileText` is the file the errors are about (quoted literals found nowhere in it are redacted: format.ts).
 */
function report(server: string, rel: string, introduced: Diagnostic[], subject: string, fileText: string) {
  const entries = introduced.map((d) => diagnosticEntry(rel, d, fileText));
  const lines = entries.slice(0, EDIT_DIAGNOSTICS_MAX_LINES).map((e) => diagnosticLine(e).split("\n")[0]);
  const more = entries.length - lines.length;
  const n = `${entries.length} error${entries.length === 1 ? "" : "s"}`;
  const head =
    subject === "this edit"
      ? `${server} language server: this edit introduced ${n}:`
      : `${server} language server: ${subject} (${rel}) introduced ${n}:`;
  return {
    entries,
    text: [head, ...lines, ...(more > 0 ? [`... and ${more} more (lsp diagnostics lists them)`] : [])].join("\n"),
  };
}

/** The result with the errors the edit introduced added to its output (and as `new_diagnostics`). */
export async function after<R extends EditResult>(workspace: Workspace, baseline: Baseline, result: R): Promise<R> {
  if (!result.success || result.changed !== true) return result;
  if (baseline.notReady) return { ...result, output: `${result.output}\n${baseline.notReady}` };
  const manager = existingLspManager(workspace);
  const running = manager?.runningFor(baseline.rel);
  if (!running) return result;
  try {
    const r = workspace.resolve(baseline.rel);
    const text = workspace.writer.readFile(r.rel)?.toString("utf8");
    if (text === undefined) return result;
    const introduced = newErrors(baseline.errors, await errorsFor(running, r.abs, text));
    if (introduced.length === 0) return result;
    const { entries, text: lines } = report(running.spec.name, baseline.rel, introduced, "this edit", text);
    return { ...result, output: `${result.output}\n${lines}`, new_diagnostics: entries };
  } catch {
    return result;
  }
}

/** What a check made in the background found about one edit (checkLater). */
export interface EditCheck {
  /** The errors the edit introduced (0: the note says the server was not ready). */
  errors: number;
  /** What to tell the model, the edit named as `subject` ("edit call call_3"). */
  report(subject: string): string;
}

/** The text the server was last told for a file by a check, and its errors for that text. */
interface Known {
  text: string;
  errors: Diagnostic[];
}

/** Per server manager and file: the last check queued, which ends with what the server knows of the file. */
const queues = new WeakMap<LspManager, Map<string, Promise<Known | undefined>>>();

/**
 * Runs `job` on `rel`'s queue: after the checks queued before it (so the server is told the file's
 * texts in the order of the edits), with what the last of them left. Never rejects.
 */
function enqueue<T>(
  manager: LspManager,
  rel: string,
  job: (last: Known | undefined) => Promise<{ known?: Known; out?: T }>,
): Promise<T | undefined> {
  let files = queues.get(manager);
  if (!files) queues.set(manager, (files = new Map()));
  const done = (files.get(rel) ?? Promise.resolve(undefined)).then(job).catch(() => ({}) as { known?: Known; out?: T });
  files.set(
    rel,
    done.then((d) => d.known),
  );
  return done.then((d) => d.out);
}

/**
 * The file's text before an edit whose check runs later (checkLater), when edit diagnostics are on
 * and the file exists; else undefined (nothing will be checked). Reading it is all it does.
 */
export function textBefore(
  workspace: Workspace,
  path: unknown,
  faceDefault: boolean,
): { rel: string; text: string } | undefined {
  if (typeof path !== "string") return undefined;
  try {
    const manager = existingLspManager(workspace) ?? lspManager(workspace);
    if (!manager.editDiagnostics(faceDefault)) return undefined;
    const r = workspace.resolve(path);
    if (!r.exists || !manager.specFor(r.rel)) return undefined;
    const text = workspace.writer.readFile(r.rel)?.toString("utf8");
    return text === undefined ? undefined : { rel: r.rel, text };
  } catch {
    return undefined;
  }
}

/**
 * The check of an edit that changed `before.rel` from `before.text` to what the file holds now
 * (read at once, before any later edit), returned as the function that starts it (the agent starts
 * it once its next model request is on its way, so that the server works while the model thinks):
 * in the background, after the file's earlier checks, the server's errors for the text before (those
 * the previous check left when it is the same text) and after; what the edit introduced, or undefined
 * when nothing (or the server cannot start here).
 * Each wait for diagnostics is bounded as the lsp tool's is (requestTimeoutMs), not as a waiting
 * edit's, and takes the diagnostics after longer silences (EDIT_CHECK_SETTLE_MS, EDIT_CHECK_QUIET_MS):
 * nothing but the end of the turn waits for a check, and a busy server publishes late.
 */
export function checkLater(
  workspace: Workspace,
  before: { rel: string; text: string },
): () => Promise<EditCheck | undefined> {
  const none = () => Promise.resolve(undefined);
  let afterText: string | undefined;
  let abs: string;
  try {
    afterText = workspace.writer.readFile(before.rel)?.toString("utf8");
    abs = workspace.resolve(before.rel).abs;
  } catch {
    return none;
  }
  if (afterText === undefined || afterText === before.text) return none;
  const after = afterText;
  const manager = existingLspManager(workspace) ?? lspManager(workspace);
  return () =>
    enqueue<EditCheck>(manager, before.rel, async (last) => {
      const { running, notReady } = await serverReady(manager, before.rel);
      if (notReady) return { out: { errors: 0, report: notReady } };
      if (!running) return {};
      const old =
        last?.text === before.text ? last.errors : await errorsFor(running, abs, before.text, laterWait(manager));
      const now = await errorsFor(running, abs, after, laterWait(manager));
      const introduced = newErrors(old, now);
      const known = { text: after, errors: now };
      if (introduced.length === 0) return { known };
      const server = running.spec.name;
      return {
        known,
        out: {
          errors: introduced.length,
          report: (subject) => report(server, before.rel, introduced, subject, after).text,
        },
      };
    });
}

/**
 * What a later edit of `path` would check against, taken ahead (the agent, after the model read the
 * file): its server started and its errors for the file's current text, queued like a check.
 */
export async function warm(workspace: Workspace, path: string, faceDefault: boolean): Promise<void> {
  const before = textBefore(workspace, path, faceDefault);
  if (!before) return;
  const manager = existingLspManager(workspace) ?? lspManager(workspace);
  const abs = workspace.resolve(before.rel).abs;
  await enqueue<never>(manager, before.rel, async (last) => {
    if (last?.text === before.text) return { known: last };
    const { running } = await serverReady(manager, before.rel);
    if (!running) return {};
    return {
      known: { text: before.text, errors: await errorsFor(running, abs, before.text, laterWait(manager)) },
    };
  });
}
