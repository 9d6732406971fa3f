// What both halves of the structural check share (check.ts reads the shell
// syntax, commandRules.ts judges commands given as words): the word type, the
// refusal, the context a rule calls back into, and the small predicates both use.
import path from "node:path";

/** One word of a command line: its literal value, or null when it is computed at run time ($x, $(...), ...). */
export type Word = string | null;

/** Thrown inside the check to stop at the first refusal. */
export class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "Refusal";
  }
}

export interface CheckContext {
  readonly allowNet: boolean;
  /** Checks a command given as words (wrappers like xargs, env, timeout, find -exec use it). */
  checkArgv(argv: Word[], via?: string): void;
  /** Parses and checks shell source found inside a string (bash -c, eval, trap, watch). */
  checkScript(source: Word, via: string): void;
}

export function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** Paths a read-only session may still write: the null device, standard streams, and the sandbox's private /tmp. */
export function isScratchPath(p: Word): boolean {
  if (p === null) return false;
  if (["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"].includes(p)) return true;
  if (p.split("/").includes("..")) return false;
  const norm = path.posix.normalize(p);
  return norm.startsWith("/tmp/") && norm.length > "/tmp/".length;
}

/** Variables that make programs load or run other code, or change which program a name runs. */
const DANGEROUS_VARIABLES = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "PS0",
  "PS4",
  "SHELLOPTS",
  "BASHOPTS",
  "BASH_XTRACEFD",
  "CDPATH",
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "ZDOTDIR",
  "INPUTRC",
  "PAGER",
  "MANPAGER",
  "EDITOR",
  "VISUAL",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "LESSKEY",
  "LESS",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "PERL5DB",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONUSERBASE",
  "NODE_OPTIONS",
  "NODE_PATH",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "SSH_AUTH_SOCK",
]);
const DANGEROUS_PREFIXES = ["LD_", "DYLD_", "GIT_", "BASH_FUNC_"];

export function dangerousVariable(name: string): boolean {
  return DANGEROUS_VARIABLES.has(name) || DANGEROUS_PREFIXES.some((p) => name.startsWith(p));
}
