// The bearer token of `rt mcp --http`. Loopback is not a boundary between the
// users of one machine: any local user (or any process of another user, a
// container sharing the network namespace...) can connect to 127.0.0.1 and would
// run tools, bash included, as the user who started the server. So every
// request must carry `Authorization: Bearer TOKEN`, a random token made at each
// start. rt prints it on standard error and writes it to a file only this user
// can read (mode 0600), in the user's runtime directory (XDG_RUNTIME_DIR) or
// else configuration directory, never in the workspace; the file is removed
// when the server stops. `--no-auth` turns the check off, with a warning.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MCP_HTTP_TOKEN_BYTES } from "../../base/limits.js";
import { confinedAt, type ConfinedFs } from "../../workspace/confinedFs.js";

/** A new random token (URL-safe base64). */
export function newToken(): string {
  return crypto.randomBytes(MCP_HTTP_TOKEN_BYTES).toString("base64url");
}

const sha256 = (s: string) => crypto.createHash("sha256").update(s, "utf8").digest();

/**
 * Whether an Authorization header carries `token`. The comparison takes the
 * same time whatever the header holds (digests of both, compared with
 * timingSafeEqual), so timing tells nothing about the token.
 */
export function authorizationMatches(header: string | string[] | undefined, token: string): boolean {
  const value = Array.isArray(header) ? "" : (header ?? "");
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  const same = crypto.timingSafeEqual(sha256(m ? m[1] : ""), sha256(token));
  return m !== null && same;
}

function isWithin(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

function realOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** Directories the token file may go in, best first: the runtime directory, then the configuration directory. */
export function tokenDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) dirs.push(path.join(env.XDG_RUNTIME_DIR, "rt"));
  const home = env.HOME || os.homedir();
  const config =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : home
        ? path.join(home, ".config")
        : undefined;
  if (config) dirs.push(path.join(config, "rt"));
  return dirs;
}

/** A directory this user owns that nobody else can write in (not a symbolic link). */
function privateEnough(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

export type TokenFile = { path: string } | { path?: undefined; reason: string };

/**
 * Writes the token to `mcp-http-PORT.token` in the first usable directory of
 * tokenDirs() outside `root`: created (mode 0700) if missing, owned by this user
 * and writable by nobody else. The file is made with O_EXCL|O_NOFOLLOW, mode
 * 0600, and renamed into place.
 */
export function writeTokenFile(
  token: string,
  port: number,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): TokenFile {
  const realRoot = realOr(root);
  const skipped: string[] = [];
  for (const dir of tokenDirs(env)) {
    if (isWithin(realRoot, dir) || isWithin(realRoot, realOr(dir)) || isWithin(root, dir)) {
      skipped.push(`${dir} is inside the workspace`);
      continue;
    }
    let files: ConfinedFs;
    try {
      files = confinedAt(dir);
      files.mkdirs([], 0o700);
    } catch (e) {
      skipped.push(`${dir}: ${(e as Error).message}`);
      continue;
    }
    if (!privateEnough(dir)) {
      skipped.push(`${dir} is not a private directory of this user`);
      continue;
    }
    const name = `mcp-http-${port}.token`;
    try {
      // The one confined writer: an O_EXCL|O_NOFOLLOW temp file (mode 0600) renamed into place.
      files.writeAtomic(name, `${token}\n`, { mode: 0o600 });
      return { path: path.join(dir, name) };
    } catch (e) {
      skipped.push(`${path.join(dir, name)}: ${(e as Error).message}`);
    }
  }
  return {
    reason: skipped.length
      ? skipped.join("; ")
      : "no runtime or configuration directory is known (set XDG_RUNTIME_DIR or HOME)",
  };
}

/** Removes the token file if it still holds `token` (another server may have replaced it since). */
export function removeTokenFile(file: string, token: string): void {
  try {
    if (fs.readFileSync(file, "utf8").trim() === token) confinedAt(path.dirname(file)).unlink(path.basename(file));
  } catch {
    /* already gone */
  }
}
