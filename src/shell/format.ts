// How a finished command reads in a ToolResult: a status line, then stdout
// and stderr, each labelled.
import type { ExitInfo } from "./runner.js";

export function formatDuration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

export function statusLine(exit: ExitInfo, timeoutMs: number | undefined): string {
  const took = formatDuration(exit.durationMs);
  if (exit.timedOut)
    return `timed out after ${formatDuration(timeoutMs ?? exit.durationMs)}: the command and every process it started (its whole process group) were killed`;
  if (exit.killed) return `killed after ${took}`;
  if (exit.spawnError) return `could not start: ${exit.spawnError}`;
  if (exit.exitCode === null) return `ended by signal ${exit.signal ?? "?"} after ${took}`;
  return `exit code ${exit.exitCode} · ${took}`;
}

/** The labelled text: "--- stdout ---" and "--- stderr ---" sections, "(no output)" when both are empty. */
export function labelledOutput(stdout: string, stderr: string): string {
  const parts: string[] = [];
  if (stdout !== "") parts.push(`--- stdout ---\n${stdout}${stdout.endsWith("\n") ? "" : "\n"}`);
  if (stderr !== "") parts.push(`--- stderr ---\n${stderr}${stderr.endsWith("\n") ? "" : "\n"}`);
  return parts.length ? parts.join("") : "(no output)\n";
}
