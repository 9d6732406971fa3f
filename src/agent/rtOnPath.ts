// Puts `rt` on the PATH of the agent's shell commands: text mode's bash
// blocks are mostly `rt open`, `rt grep`, `rt edit`... A tiny shim under
// `.rt/bin/` runs this very rt (the same node, the same dist/cli.js), so the
// model's commands use the version of rt that is running it, whatever is (or
// is not) installed globally.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { packageRoot } from "../packageRoot.js";
import { Workspace, type Profile } from "../workspace/workspace.js";

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Creates (or refreshes) the shim and returns the directory to put first on PATH. */
export function ensureRtShim(ws: Workspace): string {
  const cli = path.join(packageRoot(), "dist", "cli.js");
  const script = `#!/bin/sh\n# rt for the agent's commands (written by rt; safe to delete)\nexec ${shellQuote(process.execPath)} ${shellQuote(cli)} "$@"\n`;
  const dir = ws.state.ensure() ? ws.state.file("bin") : fs.mkdtempSync(path.join(os.tmpdir(), "rt-bin-"));
  const file = path.join(dir, "rt");
  fs.mkdirSync(dir, { recursive: true });
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== script) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script, { mode: 0o755 });
    fs.renameSync(tmp, file);
  }
  return dir;
}

/**
 * The workspace the agent's tools run in: the same root, profile and options,
 * with `rt` first on PATH, RT_ROOT pinned to the root (so `rt` paths mean the
 * same thing as the tools' paths) and RT_PROFILE passed down (so a command
 * cannot escape the profile by calling rt).
 */
export function agentWorkspace(ws: Workspace): Workspace {
  const bin = ensureRtShim(ws);
  const env = { ...ws.env, PATH: `${bin}${path.delimiter}${ws.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`, RT_ROOT: ws.root, RT_PROFILE: ws.profile };
  return new Workspace({ ...ws.options, root: ws.root, profile: ws.profile, env });
}

/** The same workspace under another profile (plan mode runs its commands as safe-read-only). */
export function withProfile(ws: Workspace, profile: Profile): Workspace {
  if (ws.profile === profile) return ws;
  return new Workspace({ ...ws.options, root: ws.root, profile, env: { ...ws.env, RT_PROFILE: profile } });
}
