// `write_output`: the one way a read-only session leaves findings.
// It only ever creates a new file under the output directory (`.rt/out/` by
// default, `--out DIR` to change): it refuses to overwrite, refuses sensitive
// names (shell start-up files, .ssh/, .git/, /etc/...), never follows a
// symbolic link out of the directory, and creates missing parent directories.
import fs from "node:fs";
import path from "node:path";
import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import { isWithin, toRel } from "../workspace/paths.js";
import { ConfinedFs, confinedAt } from "../workspace/confinedFs.js";
import { ensureStateDir } from "../workspace/state.js";
import { formatSize } from "../workspace/binary.js";
import { plural } from "./shared/format.js";
import { WRITE_OUTPUT_MAX_BYTES } from "../base/limits.js";

/** File names that configure shells, credentials or tools: never created, at any depth. */
const SENSITIVE_NAMES = new Set([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".kshrc",
  ".inputrc",
  ".netrc",
  ".npmrc",
  ".yarnrc",
  ".pypirc",
  ".gitconfig",
  ".git-credentials",
  ".gitmodules",
  ".gitattributes",
  ".env",
  ".envrc",
  ".pgpass",
  ".my.cnf",
  ".curlrc",
  ".wgetrc",
  ".vimrc",
  ".exrc",
  ".lesskey",
  ".xinitrc",
  ".xprofile",
  ".forward",
  "authorized_keys",
  "authorized_keys2",
  "known_hosts",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "crontab",
  "sudoers",
  ".pam_environment",
  ".gdbinit",
  ".lldbinit",
  ".psqlrc",
  ".sqliterc",
  ".tmux.conf",
  ".screenrc",
  ".emacs",
  ".rprofile",
  ".irbrc",
  ".xsession",
  ".xsessionrc",
]);
/** Directories whose contents configure or run things: nothing is created inside them. */
const SENSITIVE_DIRS = new Set([
  ".ssh",
  ".git",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config",
  ".local",
  ".github",
  ".gitlab",
  ".husky",
  ".circleci",
  ".vscode",
  ".idea",
  "node_modules",
  ".cargo",
  ".gradle",
  ".m2",
  ".ipython",
]);
/** Directories an output directory may never be inside. */
const SECRET_DIRS = new Set([".ssh", ".git", ".gnupg", ".aws", ".azure", ".kube", ".docker"]);
/** System locations an output directory may never be in. */
const SYSTEM_PREFIXES = [
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/var/spool",
  "/var/lib",
  "/root/.ssh",
];

/** Why `relParts` (path components) name something sensitive, or undefined. */
export function sensitiveReason(parts: string[]): string | undefined {
  for (let i = 0; i < parts.length; i++) {
    // Lower case: on a case-insensitive file system (macOS, Windows) `.GIT/config` is `.git/config`.
    const p = parts[i].toLowerCase();
    const last = i === parts.length - 1;
    if (!last && SENSITIVE_DIRS.has(p)) return `${p}/ holds configuration, credentials or repository data`;
    if (last && SENSITIVE_DIRS.has(p)) return `${p} is the name of a configuration or repository directory`;
    if (SENSITIVE_NAMES.has(p) || /^\.env\./.test(p) || /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/.test(p))
      return `${p} is a shell start-up, credential or configuration file`;
  }
  return undefined;
}

/** The real path of `p`: its longest existing ancestor resolved (symbolic links followed), the rest appended. */
function realpathNearest(p: string): string {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest);
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}

/** Why the output directory `dir` (lexical or real) may not be used, or undefined. */
function outputDirProblem(dir: string, checkSecret: boolean): string | undefined {
  if (SYSTEM_PREFIXES.some((p) => dir === p || dir.startsWith(`${p}/`)))
    return `the output directory ${dir} is a system location; choose another with --out`;
  const secretDir = checkSecret ? dir.split(path.sep).find((p) => SECRET_DIRS.has(p.toLowerCase())) : undefined;
  if (secretDir)
    return `the output directory ${dir} is inside ${secretDir}/, which holds credentials or repository data; choose another with --out`;
  return undefined;
}

/** The output directory: --out DIR (relative to the root when relative), else `.rt/out/`. */
export function outputDir(ws: Workspace): { abs: string; isDefault: boolean } {
  const chosen = ws.options.outDir;
  if (chosen === undefined || chosen === "") return { abs: path.join(ws.state.dir, "out"), isDefault: true };
  return { abs: path.resolve(ws.root, chosen), isDefault: false };
}

function display(ws: Workspace, abs: string): string {
  return isWithin(ws.root, abs) ? toRel(ws.root, abs) : abs;
}

export const writeOutputTool = defineTool({
  name: "write_output",
  aliases: [],
  description: `Create a new file of findings (report, summary, script) in the output directory (.rt/out/, or --out), in every profile, safe-read-only included. path is relative to it. Never overwrites; sensitive names (.bashrc, .ssh/, .env...) refused. At most ${formatSize(WRITE_OUTPUT_MAX_BYTES)}.`,
  schema: () =>
    z
      .object({
        path: z.string().min(1).describe("File name relative to the output directory, e.g. reports/disk-usage.md"),
        content: z.string().describe("The whole content of the new file"),
      })
      .strict(),
  readOnly: false,
  destructive: false,
  enforcesReadOnly: true,
  async handler(args, { workspace }) {
    const out = outputDir(workspace);
    const input = args.path;
    if (input.includes("\0")) throw new ToolError("path contains a NUL byte: paths must be plain text");
    const bytes = Buffer.byteLength(args.content, "utf8");
    if (bytes > WRITE_OUTPUT_MAX_BYTES)
      throw new ToolError(
        `content is ${formatSize(bytes)}; write_output creates files of at most ${formatSize(WRITE_OUTPUT_MAX_BYTES)}`,
      );

    const lexicalOut = out.abs;
    const lexicalProblem = outputDirProblem(lexicalOut, !out.isDefault);
    if (lexicalProblem) throw new ToolError(lexicalProblem);
    // The same checks on where the directory really is: a symbolic link (`--out notes` -> ~/.ssh,
    // or a `.rt/out` link shipped in a repository) must not lead into a system or secret directory.
    const realOutNow = realpathNearest(lexicalOut);
    if (out.isDefault) {
      const realRoot = realpathNearest(workspace.root);
      if (!isWithin(realRoot, realOutNow)) {
        throw new ToolError(
          `the output directory ${display(workspace, lexicalOut)} is a symbolic link leading out of the workspace (to ${realOutNow}); remove it or choose another directory with --out`,
        );
      }
      const secret = path
        .relative(realRoot, realOutNow)
        .split(path.sep)
        .find((p) => SECRET_DIRS.has(p.toLowerCase()));
      if (secret)
        throw new ToolError(
          `the output directory ${display(workspace, lexicalOut)} is a symbolic link into ${secret}/ (${realOutNow}), which holds credentials or repository data; remove it or choose another directory with --out`,
        );
    } else {
      const realProblem = realOutNow === lexicalOut ? undefined : outputDirProblem(realOutNow, true);
      if (realProblem) throw new ToolError(`${realProblem} (--out ${lexicalOut} is a symbolic link to it)`);
    }

    const target = path.resolve(lexicalOut, input);
    if (!isWithin(lexicalOut, target) || target === lexicalOut) {
      throw new ToolError(
        `${input}: outside the output directory ${display(workspace, lexicalOut)}; give a path relative to it, e.g. report.md`,
      );
    }
    const rel = path.relative(lexicalOut, target).split(path.sep);
    const why = sensitiveReason(rel);
    if (why) throw new ToolError(`${input}: refused: ${why}. write_output only creates plain new files of findings`);

    // Create the directory (and `.rt/` with its .gitignore for the default one), never through a symlink.
    if (out.isDefault && !workspace.state.ensure()) ensureStateDir(workspace.writer);
    // Symbolic links on the way must not lead out of the output directory: checked before any
    // directory is created (a refused call creates nothing), and again once they exist.
    const realParentBefore = realpathNearest(path.dirname(target));
    if (!isWithin(realOutNow, realParentBefore)) {
      throw new ToolError(
        `${input}: a symbolic link leads outside the output directory (to ${realParentBefore}); refusing to write there`,
      );
    }
    // The output directory as it really is, created if missing: inside the workspace through the
    // workspace's confined writer, elsewhere (--out) from its nearest existing ancestor.
    const inRoot = (abs: string) => isWithin(workspace.root, abs);
    if (inRoot(realOutNow)) workspace.writer.mkdirs(toRel(workspace.root, realOutNow));
    else confinedAt(realOutNow).mkdirs([]);
    const realOut = fs.realpathSync(lexicalOut);
    if (realOut !== realOutNow) {
      throw new ToolError(
        `the output directory ${display(workspace, lexicalOut)} changed while it was being created; nothing was written`,
      );
    }
    // Below the output directory nothing is followed: every directory is opened with O_NOFOLLOW
    // and the file is created with O_CREAT|O_EXCL|O_NOFOLLOW relative to the last one.
    const writer = inRoot(realOut) ? workspace.writer.sub(toRel(workspace.root, realOut)) : new ConfinedFs(realOut);
    try {
      writer.createExclusive(rel, args.content, { mode: 0o644, mkdirs: true, fsync: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") {
        throw new ToolError(
          `${display(workspace, target)} already exists; write_output never overwrites. Choose a new name (e.g. add a date or a number)`,
        );
      }
      throw e;
    }
    const lineCount = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
    const shown = display(workspace, target);
    return ok(`created ${shown} (${plural(lineCount, "line")}, ${formatSize(bytes)})`, { path: shown, bytes });
  },
});
