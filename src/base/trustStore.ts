// The folders the user trusts: `trusted.json` in the user's configuration
// directory ($XDG_CONFIG_HOME/rt, else ~/.config/rt), never in a workspace.
//
//   { "version": 1,
//     "folders": { "/real/path/of/the/root": { "trusted_at": "2025-06-01T12:00:00.000Z",
//                                              "config_sha256": "<hex>",
//                                              "extension_files": { ".mcp.json": "sha256:<hex>", ... } } } }
//
// A record names one folder by its real path: trust is of that workspace root,
// not of the folders below it (a repository cloned later under a trusted
// directory is not trusted by it). `config_sha256` pins the project's
// `.rt/config.json` as it was when the user trusted it (the digest of its
// parsed content with sorted keys): when the file changes, its untrusted keys
// are ignored again until the user trusts the folder again. `extension_files`
// pins every other file that makes rt run programs or steers the agent
// (extensionPins.ts): when one is added, edited or removed, none of them is
// read until the user trusts the folder again. A record without it (written
// before rt pinned them) pins no file: a folder that has any waits for trust.
//
// This module reads it (configuration sits below the workspace layer);
// workspace/trustRecords.ts writes it, whole and atomically (a temporary file
// created with O_EXCL and mode 0600, fsync, rename), in a directory created
// with mode 0700.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { CONFIG_FILE_MAX_BYTES } from "./limits.js";

export interface TrustRecord {
  trusted_at: string;
  config_sha256: string;
  /** The folder's extension files when it was trusted (relative path → pin); absent in older records. */
  extension_files?: Record<string, string>;
}

/** The schema of trusted.json (made when the file is read: most commands never read it). */
function trustFileSchema() {
  return z.object({
    version: z.literal(1),
    folders: z.record(
      z.string().refine((p) => path.isAbsolute(p), "folders are named by absolute paths"),
      z
        .object({
          trusted_at: z.string(),
          config_sha256: z.string().regex(/^[0-9a-f]{64}$/),
          extension_files: z.record(z.string(), z.string()).optional(),
        })
        .loose(),
    ),
  });
}

/** rt's directory in the user's configuration: $XDG_CONFIG_HOME/rt, else ~/.config/rt. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || os.homedir();
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, ".config");
  return path.join(base, "rt");
}

export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userConfigDir(env), "trusted.json");
}

/** trusted.json cannot be read or does not hold what rt writes there. */
export class TrustStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrustStoreError";
  }
}

/** Every trusted folder (empty when the file does not exist). Throws TrustStoreError naming the file. */
export function readTrustStore(env: NodeJS.ProcessEnv = process.env): Record<string, TrustRecord> {
  const file = trustStorePath(env);
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw new TrustStoreError(`${file}: not a regular file`);
    if (st.size > CONFIG_FILE_MAX_BYTES)
      throw new TrustStoreError(`${file}: larger than ${CONFIG_FILE_MAX_BYTES} bytes`);
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof TrustStoreError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") return {};
    throw new TrustStoreError(`${file}: cannot be read (${err.code ?? err.message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new TrustStoreError(
      `${file}: not valid JSON (${(e as Error).message}); fix or remove it (rt trust rewrites it)`,
    );
  }
  const parsed = trustFileSchema().safeParse(data);
  if (!parsed.success) {
    const what = parsed.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; ");
    throw new TrustStoreError(`${file}: ${what}`);
  }
  const out: Record<string, TrustRecord> = Object.create(null);
  for (const [folder, rec] of Object.entries(parsed.data.folders)) {
    out[folder] = { trusted_at: rec.trusted_at, config_sha256: rec.config_sha256 };
    if (rec.extension_files) out[folder].extension_files = rec.extension_files;
  }
  return out;
}

/** The record for one folder (a real path), if trusted. */
export function trustRecordFor(root: string, env: NodeJS.ProcessEnv = process.env): TrustRecord | undefined {
  const folders = readTrustStore(env);
  return Object.hasOwn(folders, root) ? folders[root] : undefined;
}
