// Getting a local model ready before the agent's first turn: a model that is named but not
// downloaded, and the zero-setup path (no model configured, no Ollama, no key), where rt
// offers its default local model. On a terminal rt asks first (size, where it goes, how to
// choose another); `--yes` allows the download without asking; without a terminal and
// without `--yes` rt refuses in one line and downloads nothing. Never a silent download.
import { DownloadError, downloadModel, type DownloadProgress } from "../agent/providers/localDownload.js";
import { formatBytes, modelsDir, type CatalogueEntry } from "../agent/providers/localModels.js";
import type { Io } from "./io.js";
import { terminalAvailable, terminalQuestionIo } from "./trustPrompt.js";

/** A progress line: "qwen3-4b  [#######.............]  35% 0.9 GB of 2.5 GB". */
export function progressLine(name: string, p: DownloadProgress, width = 30): string {
  if (!p.total) return `${name}  ${formatBytes(p.received)}`;
  const frac = Math.min(1, p.received / p.total);
  const done = Math.round(frac * width);
  return `${name}  [${"#".repeat(done)}${".".repeat(width - done)}] ${String(Math.floor(frac * 100)).padStart(3)}% ${formatBytes(p.received)} of ${formatBytes(p.total)}`;
}

/** Downloads with a progress bar on standard error (redrawn on a terminal, a line per 10% otherwise). */
export async function pullWithProgress(
  entry: CatalogueEntry,
  io: Pick<Io, "stderr" | "tty">,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const tty = io.tty?.stderr === true;
  let lastTenth = -2;
  let lastDraw = 0;
  const file = await downloadModel(entry, {
    env,
    onProgress: (p) => {
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && p.received !== p.total) return;
        lastDraw = now;
        io.stderr(`\r${progressLine(entry.name, p)}`);
      } else {
        const tenth = p.total ? Math.floor((p.received / p.total) * 10) : -1;
        if (tenth !== lastTenth) {
          const first = lastTenth === -2;
          lastTenth = tenth;
          io.stderr(
            `${progressLine(entry.name, p)}${p.resumedFrom && first ? ` (resumed at ${formatBytes(p.resumedFrom)})` : ""}\n`,
          );
        }
      }
    },
  });
  if (tty) io.stderr("\n");
  return file;
}

export type LocalConsent = { ok: true; file: string } | { ok: false; message: string; exitCode: number };

/**
 * Makes `entry` present: asks on a terminal (unless `yes`), refuses without one, then
 * downloads. `why` opens the question ("No model is configured and ...").
 */
export async function ensureLocalModel(
  entry: CatalogueEntry,
  o: { yes: boolean; why?: string; env: NodeJS.ProcessEnv },
): Promise<LocalConsent> {
  const size = entry.size ? `about ${formatBytes(entry.size)}` : "size unknown";
  const where = modelsDir(o.env);
  if (!o.yes) {
    if (!terminalAvailable()) {
      return {
        ok: false,
        exitCode: 2,
        message:
          `${o.why ? `${o.why}; ` : ""}the local model ${entry.name} (${size}) is not downloaded: pass --yes to download it to ${where}, ` +
          `or run \`rt models pull ${entry.name}\` first`,
      };
    }
    const q = terminalQuestionIo();
    q.write(
      [
        o.why ? `${o.why}.` : `The local model ${entry.name} is not downloaded.`,
        `rt can download ${entry.name} (${size}${entry.description ? `; ${entry.description}` : ""})`,
        `into ${where}, then continue.`,
        "Another model: --model local/NAME (rt models lists them), --model local/PATH.gguf, or another provider with --model.",
        "",
      ].join("\n"),
    );
    const answer = await q.ask(`Download ${entry.name} now? [y/N] `);
    if (answer === "interrupt") return { ok: false, exitCode: 130, message: "" };
    if (!answer || !/^\s*y(es)?\s*$/i.test(answer)) {
      return {
        ok: false,
        exitCode: 2,
        message: `nothing downloaded; \`rt models pull ${entry.name}\` downloads it later, or choose a model with --model`,
      };
    }
  }
  try {
    const file = await pullWithProgress(
      entry,
      { stderr: (s) => void process.stderr.write(s), tty: { stdout: false, stderr: process.stderr.isTTY === true } },
      o.env,
    );
    return { ok: true, file };
  } catch (e) {
    if (e instanceof DownloadError) return { ok: false, exitCode: 1, message: e.message };
    throw e;
  }
}
