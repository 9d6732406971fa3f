// After an edit, the errors it introduced, from the file's language server
// (started on the first edit when edit diagnostics are on: OpenCode's behaviour): the model sees the type error it
// just caused. Kept apart from the edit engine: the policy calls `before`
// ahead of an editing tool and `after` with its result. Only new errors are
// reported (compared by message and code, not by line, since the edit moves
// lines), at most EDIT_DIAGNOSTICS_MAX_LINES of them.
import type { Workspace } from "../workspace/workspace.js";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { existingLspManager, lspManager, type LspManager } from "./manager.js";
import { diagnosticEntry, diagnosticLine } from "./format.js";
import { EDIT_DIAGNOSTICS_MAX_LINES, EDIT_DIAGNOSTICS_TIMEOUT_MS } from "../base/limits.js";

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

/**
 * The server for `rel`, started now when none runs (edit diagnostics are on), if it is ready
 * within the manager's editStartTimeoutMs (EDIT_DIAGNOSTICS_START_TIMEOUT_MS unless configured); else why not. A server still starting goes on
 * starting, for the next edit.
 */
async function serverReady(
  manager: LspManager,
  rel: string,
): Promise<{ running?: ReturnType<LspManager["runningFor"]>; notReady?: string }> {
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
      return {
        notReady: `(the ${spec.name} language server was not ready within ${startMs / 1000} s; this edit's errors were not checked: lsp diagnostics checks the file)`,
      };
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
  if (notReady) return { rel: r.rel, errors: [], notReady };
  if (!running) return undefined;
  try {
    const text = workspace.writer.readFile(r.rel)?.toString("utf8");
    if (text === undefined) return undefined;
    const ext = r.rel.slice(r.rel.lastIndexOf(".")).toLowerCase();
    await running.client.sync(r.abs, text, running.spec.languageId(ext));
    return { rel: r.rel, errors: errorsOf(await running.client.diagnosticsOf(r.abs, EDIT_DIAGNOSTICS_TIMEOUT_MS)) };
  } catch {
    return undefined; // no baseline, no report: an edit never fails for its diagnostics
  }
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
    const ext = r.rel.slice(r.rel.lastIndexOf(".")).toLowerCase();
    await running.client.sync(r.abs, text, running.spec.languageId(ext));
    const now = errorsOf(await running.client.diagnosticsOf(r.abs, EDIT_DIAGNOSTICS_TIMEOUT_MS));
    // A multiset difference: an error that was there before (anywhere) is not new.
    const old = new Map<string, number>();
    for (const d of baseline.errors) old.set(key(d), (old.get(key(d)) ?? 0) + 1);
    const introduced = now.filter((d) => {
      const n = old.get(key(d)) ?? 0;
      if (n > 0) {
        old.set(key(d), n - 1);
        return false;
      }
      return true;
    });
    if (introduced.length === 0) return result;
    const entries = introduced.map((d) => diagnosticEntry(baseline.rel, d, text));
    const lines = entries.slice(0, EDIT_DIAGNOSTICS_MAX_LINES).map((e) => diagnosticLine(e).split("\n")[0]);
    const more = entries.length - lines.length;
    const head = `${running.spec.name} language server: this edit introduced ${entries.length} error${entries.length === 1 ? "" : "s"}:`;
    return {
      ...result,
      output: [
        result.output,
        head,
        ...lines,
        ...(more > 0 ? [`... and ${more} more (lsp diagnostics lists them)`] : []),
      ].join("\n"),
      new_diagnostics: entries,
    };
  } catch {
    return result;
  }
}
