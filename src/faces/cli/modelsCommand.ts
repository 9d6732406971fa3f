// `rt models` (the local models downloaded and the catalogue), `rt models pull NAME`
// (download one, with a progress bar, resumable, checked against its SHA-256) and
// `rt models rm NAME`.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../../base/config.js";
import type { Workspace } from "../../workspace/workspace.js";
import { confinedAt } from "../../workspace/confinedFs.js";
import type { Io } from "../../ui/io.js";
import {
  catalogue,
  defaultModelName,
  formatBytes,
  modelFile,
  modelsDir,
  nameForSource,
  parseLocalSettings,
  type CatalogueEntry,
  type LocalSettings,
} from "../../agent/providers/localModels.js";
import { DownloadError } from "../../agent/providers/localDownload.js";
import { pullWithProgress } from "../../ui/localModelSetup.js";

const USAGE = "Usage: rt models [--json] | rt models pull NAME|hf:OWNER/REPO/FILE.gguf | rt models rm NAME";

function entryFor(name: string, settings: LocalSettings): CatalogueEntry | undefined {
  const known = catalogue(settings).find((e) => e.name === name);
  if (known) return known;
  if (/^(hf:[^/\s]+\/[^/\s]+\/\S+\.gguf|https?:\/\/\S+)$/i.test(name))
    return { name: nameForSource(name), source: name, origin: "configuration" };
  return undefined;
}

export async function modelsCommand(
  ws: Workspace,
  positionals: string[],
  flags: Record<string, unknown>,
  io: Io,
): Promise<number> {
  let settings: LocalSettings;
  try {
    settings = parseLocalSettings((loadConfig(ws) as Record<string, unknown>).local);
  } catch (e) {
    io.stderr(`rt models: ${(e as Error).message}\n`);
    return 2;
  }
  const env = ws.env;
  const [sub, name, ...extra] = positionals;
  if (sub === undefined) return list(settings, env, flags.json === true, io);
  if (sub !== "pull" && sub !== "rm") {
    io.stderr(`rt models: unknown subcommand "${sub}" (pull, rm, or none to list)\n${USAGE}\n`);
    return 2;
  }
  if (!name || extra.length) {
    io.stderr(`rt models ${sub}: ${name ? `unexpected argument "${extra[0]}"` : "missing NAME"}\n${USAGE}\n`);
    return 2;
  }
  const entry = entryFor(name, settings);
  if (!entry) {
    io.stderr(
      `rt models ${sub}: unknown model "${name}"; the catalogue has ${catalogue(settings)
        .map((e) => e.name)
        .join(", ")} (or give an hf:OWNER/REPO/FILE.gguf URI)\n`,
    );
    return 2;
  }
  if (sub === "rm") {
    const file = modelFile(entry, env);
    const present = [file, `${file}.part`].filter((f) => fs.existsSync(f));
    if (!present.length) {
      io.stderr(`rt models rm: ${entry.name} is not downloaded (nothing at ${file})\n`);
      return 1;
    }
    for (const f of present) confinedAt(path.dirname(f)).unlink(path.basename(f));
    io.stdout(`removed ${present.join(", ")}\n`);
    return 0;
  }
  if (fs.existsSync(modelFile(entry, env))) {
    io.stdout(`${entry.name} is already downloaded: ${modelFile(entry, env)}\n`);
    return 0;
  }
  try {
    const file = await pullWithProgress(entry, io, env);
    io.stdout(`${entry.name}: ${file}\nUse it: rt run --model local/${entry.name} "..."\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof DownloadError)) throw e;
    io.stderr(`rt models pull: ${e.message}\n`);
    return 1;
  }
}

function list(settings: LocalSettings, env: NodeJS.ProcessEnv, json: boolean, io: Io): number {
  const dir = modelsDir(env);
  const entries = catalogue(settings);
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".gguf")) : [];
  const def = settings.default_model ?? defaultModelName();
  const rows = entries.map((e) => {
    const file = modelFile(e, env);
    const downloaded = fs.existsSync(file);
    const partial = fs.existsSync(`${file}.part`) ? fs.statSync(`${file}.part`).size : undefined;
    return {
      name: e.name,
      source: e.source,
      size: downloaded ? fs.statSync(file).size : e.size,
      downloaded,
      partial,
      default: e.name === def,
      origin: e.origin,
      description: e.description,
    };
  });
  // Downloaded files that are no catalogue entry (pulled by hf: URI).
  for (const f of files) {
    const name = f.replace(/\.gguf$/, "");
    if (!rows.some((r) => r.name === name))
      rows.push({
        name,
        source: path.join(dir, f),
        size: fs.statSync(path.join(dir, f)).size,
        downloaded: true,
        partial: undefined,
        default: false,
        origin: "configuration",
        description: undefined,
      });
  }
  if (json) {
    io.stdout(`${JSON.stringify({ dir, models: rows })}\n`);
    return 0;
  }
  io.stdout(`Local models (stored in ${dir}):\n`);
  for (const r of rows) {
    const state = r.downloaded
      ? "downloaded"
      : r.partial !== undefined
        ? `partial ${formatBytes(r.partial)}`
        : "not downloaded";
    const size = r.size ? `${r.downloaded ? "" : "~"}${formatBytes(r.size)}` : "size unknown";
    io.stdout(
      `  ${r.name.padEnd(22)} ${size.padEnd(10)} ${state.padEnd(16)}${r.default ? " (default)" : ""}${r.description ? `  ${r.description}` : ""}\n`,
    );
  }
  io.stdout(
    `rt models pull NAME downloads one; rt run --model local/NAME uses it (local/PATH.gguf for a file of your own).\n`,
  );
  return 0;
}
