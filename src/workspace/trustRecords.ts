// Writes the user's trust records (trusted.json; its format and reading are in
// ../base/trustStore.ts). Here, in the workspace layer, because every byte rt writes
// goes through the one confined writer.
import path from "node:path";
import { readTrustStore, trustStorePath, type TrustRecord } from "../base/trustStore.js";
import { confinedAt } from "./confinedFs.js";
import { pinExtensionFiles, type ExtensionPins } from "../base/extensionPins.js";

function writeTrustStore(folders: Record<string, TrustRecord>, env: NodeJS.ProcessEnv): void {
  const file = trustStorePath(env);
  const sorted: Record<string, TrustRecord> = {};
  for (const k of Object.keys(folders).sort()) sorted[k] = folders[k];
  const text = `${JSON.stringify({ version: 1, folders: sorted }, null, 2)}\n`;
  // Through the workspace's one writer: temp file (O_EXCL, never through a symlink), fsync, rename, directory fsync.
  const dir = confinedAt(path.dirname(file));
  dir.mkdirs([], 0o700);
  dir.writeAtomic(path.basename(file), text, { mode: 0o600 });
}

/**
 * Records trust of `root` (a real path) with the digest of its configuration and
 * the pins of its extension files now (extensionPins.ts; taken here when not
 * given). Throws TrustStoreError when trusted.json is unreadable (it is then left as it is).
 */
export function recordTrust(
  root: string,
  configSha256: string,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
  extensionFiles: ExtensionPins = pinExtensionFiles(root),
): TrustRecord {
  const folders = readTrustStore(env);
  const record: TrustRecord = {
    trusted_at: now.toISOString(),
    config_sha256: configSha256,
    extension_files: extensionFiles,
  };
  folders[root] = record;
  writeTrustStore(folders, env);
  return record;
}

/** Removes `root`'s record. False when it was not trusted (nothing is written then). */
export function revokeTrust(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const folders = readTrustStore(env);
  if (!Object.hasOwn(folders, root)) return false;
  delete folders[root];
  writeTrustStore(folders, env);
  return true;
}
