// `rt trust [DIR]`, `rt trust --show [DIR]`, `rt trust --list`, `rt untrust [DIR]`
// (also `rt trust --revoke [DIR]`): the folders whose `.rt/config.json` applies in
// full and whose extension files are read (see src/base/trustStore.ts and
// src/base/extensionPins.ts). Trusting shows everything the folder makes rt run or
// use and what changed since it was last trusted (src/ui/trustInventory.ts);
// --show shows the same and records nothing.
// DIR defaults to the workspace root rt would use here (--root, RT_ROOT, the
// enclosing git repository, the current directory). Trust is recorded for the
// folder's real path only, not for the folders below it.
import fs from "node:fs";
import path from "node:path";
import { ConfigError, inspectProject, type ProjectInspection } from "../../base/config.js";
import { settingLines, shellQuotePath } from "../../base/configTrust.js";
import { readTrustStore, trustStorePath, TrustStoreError } from "../../base/trustStore.js";
import { formatChanges } from "../../base/configTrust.js";
import { formatInventory, trustInventory } from "../../ui/trustInventory.js";
import { recordTrust, revokeTrust } from "../../workspace/trustRecords.js";
import { findGitTop } from "../../workspace/workspace.js";
import type { Io } from "../../ui/io.js";

/** DIR as a real directory, or an error message. */
function folderOf(dir: string): { root: string } | { error: string } {
  const abs = path.resolve(dir);
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    return { error: `${abs}: no such directory` };
  }
  if (!fs.statSync(real).isDirectory()) return { error: `${abs}: not a directory` };
  return { root: real };
}

function inspect(root: string, env: NodeJS.ProcessEnv): ProjectInspection {
  return inspectProject({ root, env });
}

function list(env: NodeJS.ProcessEnv, io: Io): number {
  const folders = readTrustStore(env);
  const names = Object.keys(folders).sort();
  if (names.length === 0) {
    io.stdout(`No folder is trusted (${trustStorePath(env)}).\n`);
    return 0;
  }
  for (const folder of names) {
    let status: string;
    try {
      if (!fs.existsSync(folder)) throw new Error("gone");
      const { trust } = inspect(folder, env);
      const ext = trust.extensions;
      status =
        trust.state !== "trusted"
          ? `.rt/config.json changed since: its settings wait until rt trust ${shellQuotePath(folder)}`
          : ext.state !== "trusted"
            ? `extension files changed since (${formatChanges(ext.changes)}): none is read until rt trust ${shellQuotePath(folder)}`
            : ".rt/config.json as trusted";
    } catch (e) {
      status = fs.existsSync(folder)
        ? `cannot read its configuration (${(e as Error).message})`
        : "no longer exists (rt untrust removes it)";
    }
    io.stdout(`${shellQuotePath(folder)}  trusted ${folders[folder].trusted_at}  ${status}\n`);
  }
  return 0;
}

function trust(root: string, env: NodeJS.ProcessEnv, io: Io, dirGiven: boolean, showOnly: boolean): number {
  let inspection: ProjectInspection;
  try {
    inspection = inspect(root, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`rt trust: not trusted: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const { trust: t } = inspection;
  if (t.unreadable) {
    io.stderr(`rt trust: not trusted: ${t.unreadable}\n`);
    return 1;
  }
  const inventory = trustInventory(inspection, env);
  const q = shellQuotePath(root);
  if (showOnly) {
    const where = inventory.wasTrusted
      ? inventory.changes.length
        ? "trusted, but changed since"
        : "trusted, unchanged since"
      : "not trusted";
    io.stdout(`${q}: ${where}.\n`);
    if (t.untrustedKeys.length)
      io.stdout(`Its .rt/config.json settings that need trust:\n${settingLines(t.untrustedKeys)}`);
    io.stdout(formatInventory(inventory));
    io.stdout(`Nothing recorded; to trust it as it is now: rt trust ${q}\n`);
    return 0;
  }
  recordTrust(root, t.digest, env);
  io.stdout(`Trusted ${q} (recorded in ${trustStorePath(env)}; rt untrust ${q} revokes it).\n`);
  if (t.untrustedKeys.length) {
    io.stdout(`Its .rt/config.json now applies in full, including:\n${settingLines(t.untrustedKeys)}`);
  } else if (inventory.lines.length === 0 && inventory.pinned.length === 0) {
    // Said only when nothing else needed trust either: the extension files below may run programs.
    io.stdout("Its .rt/config.json holds nothing that needed trust.\n");
  }
  io.stdout(formatInventory(inventory));
  io.stdout(
    "When that file changes, its settings wait again until you trust the folder again. Folders below it are not covered.\n",
  );
  if (inventory.pinned.length) {
    io.stdout(
      "Its extension files are read as they are now: when one is added, edited or removed, none of them is read until you trust the folder again.\n",
    );
  }
  const top = findGitTop(root);
  if (dirGiven && top && top !== root) {
    io.stdout(
      `Note: started inside the repository ${shellQuotePath(top)}, rt uses its root as the workspace; to trust that: rt trust ${shellQuotePath(top)}\n`,
    );
  }
  return 0;
}

function untrust(root: string, env: NodeJS.ProcessEnv, io: Io): number {
  const q = shellQuotePath(root);
  if (!revokeTrust(root, env)) {
    io.stderr(`rt untrust: ${q} is not trusted; nothing changed (rt trust --list shows the trusted folders)\n`);
    return 1;
  }
  io.stdout(`No longer trusted: ${q}. Its .rt/config.json keys that need trust are ignored again.\n`);
  return 0;
}

/** `rt trust` and `rt untrust`. `workspaceRoot`: the root rt chose here (used when no DIR is given). */
export function trustCommand(
  command: "trust" | "untrust",
  positionals: string[],
  flags: Record<string, string | boolean | number | undefined>,
  workspaceRoot: string,
  env: NodeJS.ProcessEnv,
  io: Io,
): number {
  const name = command === "untrust" ? "untrust" : flags.revoke === true ? "trust --revoke" : "trust";
  const usage =
    command === "untrust"
      ? "rt untrust [DIR]"
      : "rt trust [DIR] | rt trust --show [DIR] | rt trust --list | rt trust --revoke [DIR]";
  if (positionals.length > 1) {
    io.stderr(`rt ${name}: unexpected argument "${positionals[1]}"\nUsage: ${usage}\n`);
    return 2;
  }
  if (flags.list === true && (positionals.length || flags.revoke === true || flags.show === true)) {
    io.stderr(`rt ${name}: --list takes no folder, no --revoke and no --show\nUsage: ${usage}\n`);
    return 2;
  }
  if (flags.show === true && flags.revoke === true) {
    io.stderr(`rt ${name}: --show and --revoke do not go together\nUsage: ${usage}\n`);
    return 2;
  }
  try {
    if (flags.list === true) return list(env, io);
    let root = workspaceRoot;
    if (positionals.length) {
      const f = folderOf(positionals[0]);
      if ("error" in f) {
        // A folder that is gone can still be revoked by the path it was trusted under.
        const gone = path.resolve(positionals[0]);
        if ((command === "untrust" || flags.revoke === true) && Object.hasOwn(readTrustStore(env), gone))
          return untrust(gone, env, io);
        io.stderr(`rt ${name}: ${f.error}\nUsage: ${usage}\n`);
        return 2;
      }
      root = f.root;
    }
    if (command === "untrust" || flags.revoke === true) return untrust(root, env, io);
    return trust(root, env, io, positionals.length > 0, flags.show === true);
  } catch (e) {
    if (e instanceof TrustStoreError) {
      io.stderr(`rt ${name}: ${e.message}; nothing changed\n`);
      return 1;
    }
    throw e;
  }
}
