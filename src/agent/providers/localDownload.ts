// Downloading a catalogue model into the models directory (localModels.ts: modelsDir):
// into NAME.gguf.part, resumed with a Range request when a part is there, checked
// against the entry's SHA-256 when it has one, then renamed to NAME.gguf. Nothing is
// written outside the models directory: the file name comes from the entry's name, which
// the catalogue's schema limits to letters, digits, _ . - (no separator), and is checked
// again here. A host that does not answer within LOCAL_DOWNLOAD_CONNECT_MS, or a
// transfer that stalls for LOCAL_DOWNLOAD_STALL_MS, ends the download with one line
// naming the manual alternative.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { LOCAL_DOWNLOAD_CONNECT_MS, LOCAL_DOWNLOAD_STALL_MS } from "../../base/limits.js";
import { modelFile, modelsDir, sourceUrl, type CatalogueEntry } from "./localModels.js";
import { confinedAt } from "../../workspace/confinedFs.js";

export interface DownloadProgress {
  received: number;
  /** Total bytes, when the host says. */
  total?: number;
  /** Bytes that were already there (a resumed download). */
  resumedFrom: number;
}

export interface DownloadOptions {
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  connectTimeoutMs?: number;
  stallTimeoutMs?: number;
}

export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DownloadError";
  }
}

/** The manual way, for messages: download the file yourself and name it with --model. */
export function manualAlternative(entry: CatalogueEntry, env: NodeJS.ProcessEnv = process.env): string {
  return `download ${sourceUrl(entry.source, env)} yourself and run rt with --model local/PATH.gguf`;
}

/** The path a model is stored at, checked to be a direct child of the models directory. */
function safeTarget(entry: CatalogueEntry, env: NodeJS.ProcessEnv): string {
  const dir = modelsDir(env);
  const file = modelFile(entry, env);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(entry.name) || path.dirname(file) !== dir) {
    throw new DownloadError(`model name "${entry.name}" is not a plain file name (letters, digits, _ . -)`);
  }
  return file;
}

async function sha256Of(file: string): Promise<string> {
  const hash = crypto.createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Downloads `entry` (resuming a partial download); returns the model's path. */
export async function downloadModel(entry: CatalogueEntry, o: DownloadOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const target = safeTarget(entry, env);
  const part = `${target}.part`;
  // Written through a confined writer of the models directory: no symlink on the way is followed.
  const files = confinedAt(path.dirname(target));
  files.mkdirs([]);
  const partName = path.basename(part);
  const url = sourceUrl(entry.source, env);
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      throw new DownloadError(`"${url}" is not a URL`);
    }
  })();
  const have = fs.existsSync(part) ? fs.statSync(part).size : 0;

  const ctl = new AbortController();
  const abort = () => ctl.abort();
  o.signal?.addEventListener("abort", abort, { once: true });
  let timer = setTimeout(() => ctl.abort(), o.connectTimeoutMs ?? LOCAL_DOWNLOAD_CONNECT_MS);
  const noNetwork = (what: string) =>
    new DownloadError(`cannot download ${entry.name}: ${what}; ${manualAlternative(entry, env)}`);
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: have > 0 ? { Range: `bytes=${have}-` } : {},
        signal: ctl.signal,
        redirect: "follow",
      });
    } catch (e) {
      if (o.signal?.aborted) throw new DownloadError("download interrupted");
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = ctl.signal.aborted
        ? `${host} did not answer within ${Math.round((o.connectTimeoutMs ?? LOCAL_DOWNLOAD_CONNECT_MS) / 1000)} s`
        : `cannot reach ${host} (${cause?.code ?? cause?.message ?? (e as Error).message})`;
      throw noNetwork(why);
    }
    if (res.status === 416 && have > 0) {
      // The part is already whole: the host has nothing after it.
    } else if (!res.ok) {
      throw noNetwork(`${host} answered ${res.status} ${res.statusText}`);
    }
    const resumed = res.status === 206;
    if (!resumed) files.unlink(partName);
    const out = resumed ? files.openAppend(partName) : files.openExclusive(partName, { mode: 0o644 });
    let received = resumed ? have : 0;
    const length = Number(res.headers.get("content-length") ?? NaN);
    const total = res.status === 416 ? have : Number.isFinite(length) ? length + (resumed ? have : 0) : entry.size;
    const progress = (): DownloadProgress => ({
      received,
      ...(total !== undefined ? { total } : {}),
      resumedFrom: resumed ? have : 0,
    });
    o.onProgress?.(progress());
    const stall = o.stallTimeoutMs ?? LOCAL_DOWNLOAD_STALL_MS;
    clearTimeout(timer);
    timer = setTimeout(() => ctl.abort(), stall);
    try {
      if (res.body && res.status !== 416) {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          clearTimeout(timer);
          timer = setTimeout(() => ctl.abort(), stall);
          out.write(chunk);
          received += chunk.length;
          o.onProgress?.(progress());
        }
      }
    } catch (e) {
      out.close();
      if (o.signal?.aborted)
        throw new DownloadError(`download interrupted at ${received} bytes; run the same command again to resume`);
      const why = ctl.signal.aborted
        ? `nothing arrived from ${host} for ${Math.round(stall / 1000)} s`
        : `the connection to ${host} broke (${(e as Error).message})`;
      throw new DownloadError(
        `cannot download ${entry.name}: ${why} at ${received} bytes; run the same command again to resume, or ${manualAlternative(entry, env)}`,
      );
    }
    out.close();
    if (Number.isFinite(length) && received < (resumed ? have : 0) + length) {
      throw new DownloadError(
        `cannot download ${entry.name}: the connection ended at ${received} of ${total} bytes; run the same command again to resume`,
      );
    }
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", abort);
  }
  if (entry.sha256) {
    const got = await sha256Of(part);
    if (got !== entry.sha256.toLowerCase()) {
      files.unlink(partName);
      throw new DownloadError(
        `the download of ${entry.name} does not match its SHA-256 (expected ${entry.sha256}, got ${got}); the file was removed`,
      );
    }
  }
  files.renameWithin(partName, path.basename(target));
  return target;
}
