import { CHECK_MAX_NESTING } from "../base/limits.js";
import { Refusal, dangerousVariable, isScratchPath, refuse, type CheckContext, type Word } from "./checkBase.js";
import { checkArgvRules } from "./commandRules.js";

/** The part of a tree-sitter node the check reads (web-tree-sitter's Node has it). */
export interface SyntaxNode {
  readonly type: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly isError: boolean;
  readonly text: string;
  readonly childCount: number;
  readonly parent: SyntaxNode | null;
  child(index: number): SyntaxNode | null;
  fieldNameForChild(index: number): string | null;
}

export interface ShellParse {
  root: SyntaxNode;
  /** Frees the tree (web-tree-sitter trees live in WebAssembly memory). */
  dispose?: () => void;
}

/** Parses bash source synchronously (see parser.ts). */
export type ParseFn = (source: string) => ShellParse;

export interface CheckOptions {
  /** The sandbox has network access (`--allow-net`): network clients are not refused. */
  allowNet?: boolean;
}

export type CheckVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The structural check. `parse` turns shell source into a tree (it is called
 * again for shell code found inside strings). Never throws for a refusal: the
 * verdict carries the reason.
 */
export function checkShellCommand(source: string, parse: ParseFn, opts: CheckOptions = {}): CheckVerdict {
  try {
    checkSource(source, parse, opts.allowNet === true, 0, undefined);
    return { ok: true };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason };
    throw e;
  }
}

// Plain commands: a command line made only of plain words (`git status`,
// `ls -la src`, `rg -n TODO src/app.py`) means exactly one command whose
// words are literal, so it needs no parser: its words are what tree-sitter
// would give the rules below. Loading the parser (WebAssembly) is most of a
// first sandboxed command's time, so these skip it. A word is plain when it has
// none of the characters that make the shell do anything but split on blanks
// (quotes, $, `, \, globs, braces, ~, #, !, redirections, ;, &, |, parentheses,
// newlines); the command name must not be an assignment or a word the shell
// (or tree-sitter-bash) reads as a keyword or a declaration. The test suite
// checks that the verdict is the parser's own over many generated commands.
const PLAIN_LINE = /^[ \t]*[A-Za-z0-9_./:@%+,=-]+(?:[ \t]+[A-Za-z0-9_./:@%+,=-]+)*[ \t]*$/;
const NOT_PLAIN_NAMES = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "time",
  "coproc",
  "declare",
  "typeset",
  "export",
  "readonly",
  "local",
  "unset",
  "unsetenv",
]);

/** The words of a plain command line, or undefined when it needs the shell parser. */
export function plainWords(source: string): string[] | undefined {
  if (!PLAIN_LINE.test(source)) return undefined;
  const words = source.split(/[ \t]+/).filter((w) => w !== "");
  const name = words[0];
  // `a=b` is an assignment; tree-sitter-bash reads `a@`, `a%`, `a+:` at the start of a line as a
  // (broken) variable name, words after a command named `-` as assignments, and a final `==` as a
  // test operator: such lines take the parser's path.
  if (/[=@%+]/.test(name) || name.startsWith("-") || NOT_PLAIN_NAMES.has(name) || words.includes("=="))
    return undefined;
  return words;
}

// Plain command lists: plain commands joined by `|`, `||`, `&&` or `;` (`git log
// --oneline | head -5`, `make && make test`). The shell splits such a line at
// those operators and nothing else, and the parser's walk below checks each
// command of a pipeline or list on its own, in order, exactly as the plain path
// does; an empty command between operators (`a ;; b`, `a |`, `a |||b`) or a
// lone `&` leaves a piece that is not plain, so the line takes the parser's path.
const PLAIN_LIST_CHARS = /^[A-Za-z0-9_./:@%+,=\- \t|&;]+$/;
const LIST_OPERATOR = /\|\||&&|[|;]/;

/** The commands of a plain command list, in order, or undefined when it needs the shell parser. */
export function plainCommands(source: string): string[][] | undefined {
  if (!PLAIN_LIST_CHARS.test(source)) return undefined;
  const commands: string[][] = [];
  for (const piece of source.split(LIST_OPERATOR)) {
    const words = plainWords(piece);
    if (!words) return undefined;
    commands.push(words);
  }
  return commands;
}

/** Thrown when a plain-only check meets shell code that needs the parser. */
class ParserNeeded extends Error {}

/**
 * The check without the shell parser, for plain command lines (and the plain
 * shell code they run, as in `bash -c ls`): the verdict, or undefined when the
 * full check (checkShellCommand) is needed.
 */
export function checkPlainCommand(source: string, opts: CheckOptions = {}): CheckVerdict | undefined {
  if (!plainCommands(source)) return undefined;
  try {
    return checkShellCommand(
      source,
      () => {
        throw new ParserNeeded();
      },
      opts,
    );
  } catch (e) {
    if (e instanceof ParserNeeded) return undefined;
    throw e;
  }
}

function checkSource(source: string, parse: ParseFn, allowNet: boolean, depth: number, via: string | undefined): void {
  if (depth > CHECK_MAX_NESTING)
    refuse(`shell code nested more than ${CHECK_MAX_NESTING} levels deep (${via}) is not checked`);
  if (source.includes("\0")) refuse("the command contains a NUL byte");
  const commands = plainCommands(source);
  const parsed = commands ? undefined : parse(source);
  try {
    const ctx: CheckContext = {
      allowNet,
      checkArgv: (argv, how) => checkArgvRules(argv, ctx, how),
      checkScript: (script, how) => {
        if (script === null) refuse(`${how} runs shell code computed at run time, which cannot be checked`);
        try {
          checkSource(script, parse, allowNet, depth + 1, how);
        } catch (e) {
          if (e instanceof Refusal && !e.reason.includes(`(inside ${how})`))
            throw new Refusal(`${e.reason} (inside ${how})`);
          throw e;
        }
      },
    };
    if (commands) for (const words of commands) ctx.checkArgv(words);
    else walk(parsed!.root, ctx, source);
  } finally {
    parsed?.dispose?.();
  }
}

function snippet(text: string, max = 40): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

function children(node: SyntaxNode): Array<{ node: SyntaxNode; field: string | null }> {
  const out: Array<{ node: SyntaxNode; field: string | null }> = [];
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c) out.push({ node: c, field: node.fieldNameForChild(i) });
  }
  return out;
}

function walk(node: SyntaxNode, ctx: CheckContext, source: string): void {
  if (node.isError || node.type === "ERROR") {
    refuse(
      `the command is not valid shell syntax (the parser stopped at "${snippet(node.text)}"); fix the quoting or split it into simpler commands`,
    );
  }
  if (node.isMissing) refuse(`the command is incomplete shell syntax (a "${node.type}" is missing)`);
  switch (node.type) {
    case "command":
      checkCommandNode(node, ctx);
      break;
    case "file_redirect":
      checkRedirect(node, ctx);
      break;
    case "variable_assignment":
      checkAssignment(node);
      break;
  }
  for (const { node: child } of children(node)) {
    if (!child.isNamed && child.type === "&") {
      refuse(
        "backgrounding with `&` leaves a process running after the command returns; run it in the foreground, or use the bash tool's background: true",
      );
    }
    walk(child, ctx, source);
  }
}

// ---------------------------------------------------------------------------
// Words: what a node means as a literal string, when it has one.

function unescapeUnquoted(text: string): string {
  return text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    a: "\x07",
    b: "\b",
    e: "\x1b",
    E: "\x1b",
    f: "\f",
    v: "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
  };
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_, esc: string) => {
      if (esc[0] === "x" || esc[0] === "u" || esc[0] === "U") return String.fromCodePoint(parseInt(esc.slice(1), 16));
      if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
      if (esc[0] === "c") return String.fromCharCode(esc.charCodeAt(1) & 31);
      return simple[esc] ?? `\\${esc}`;
    },
  );
}

const BRACE_EXPANSION = /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/;
const GLOB_CHARS = /[*?[]/;

/**
 * The literal value of a word-like node, or null when the shell computes it at
 * run time (parameter, command, arithmetic or process substitution; brace
 * expansion). With `strict`, unquoted glob characters and a leading `~` also
 * make it null (used for command names: `/bin/r?` may run /bin/rm).
 */
export function literalOf(node: SyntaxNode, strict = false): Word {
  switch (node.type) {
    case "word": {
      if (BRACE_EXPANSION.test(node.text)) return null;
      if (strict && (GLOB_CHARS.test(node.text) || node.text.startsWith("~"))) return null;
      return unescapeUnquoted(node.text);
    }
    case "number":
      return node.text;
    case "raw_string":
      return node.text.slice(1, -1);
    case "ansi_c_string":
      return decodeAnsiC(node.text.slice(2, -1));
    case "string": {
      let out = "";
      for (const { node: c } of children(node)) {
        if (!c.isNamed) continue; // the quotes
        if (c.type === "string_content") out += unescapeDoubleQuoted(c.text);
        else return null;
      }
      return out;
    }
    case "translated_string": {
      const inner = children(node).find((c) => c.node.isNamed);
      return inner ? literalOf(inner.node, strict) : "";
    }
    case "concatenation": {
      if (BRACE_EXPANSION.test(node.text)) return null;
      let out = "";
      for (const { node: c } of children(node)) {
        const part = literalOf(c, strict);
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    case "command_name": {
      const inner = children(node)[0];
      return inner ? literalOf(inner.node, strict) : null;
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------
// Commands, redirections, assignments.

function checkCommandNode(node: SyntaxNode, ctx: CheckContext): void {
  let nameNode: SyntaxNode | undefined;
  const args: Word[] = [];
  for (const { node: c, field } of children(node)) {
    if (field === "name") nameNode = c;
    else if (field === "argument") args.push(literalOf(c));
    else if (c.type === "variable_assignment") checkAssignment(c); // `VAR=x cmd`: before the command
  }
  // tree-sitter-bash attaches words that follow a redirection (`cat > f x`) to
  // the redirection as extra destinations; to bash they are arguments.
  const parent = node.parent;
  if (parent && parent.type === "redirected_statement") {
    for (const { node: r, field } of children(parent)) {
      if (field !== "redirect" || r.type !== "file_redirect") continue;
      const dests = children(r).filter((c) => c.field === "destination");
      for (const d of dests.slice(1)) args.push(literalOf(d.node));
    }
  }
  if (!nameNode) return; // assignments only
  const name = literalOf(nameNode, true);
  if (name === null) {
    refuse(
      `the command name \`${snippet(nameNode.text)}\` is computed at run time, so the check cannot tell what would run; write the command name literally`,
    );
  }
  ctx.checkArgv([name, ...args]);
}

function isNetworkDevice(p: string): boolean {
  return /^\/dev\/(tcp|udp)\//.test(p);
}

function checkRedirect(node: SyntaxNode, ctx: CheckContext): void {
  const parts = children(node);
  const op = parts.find((c) => !c.node.isNamed)?.node.type ?? "";
  const destNode = parts.find((c) => c.field === "destination")?.node;
  const dest = destNode ? literalOf(destNode) : null;
  const shown = destNode ? snippet(destNode.text) : "";
  if (dest !== null && isNetworkDevice(dest)) {
    if (!ctx.allowNet)
      refuse(
        `redirection \`${op} ${shown}\` opens a network connection; the sandbox has no network (the user can allow it with --allow-net)`,
      );
    if (op !== "<") refuse(`redirection \`${op} ${shown}\` sends data over the network`);
    return;
  }
  switch (op) {
    case "<":
    case "<&-":
    case ">&-":
      return;
    case "<&":
    case ">&":
      // Duplicating a descriptor (2>&1, >&2, <&3) writes no file; `>& name` does.
      if (dest !== null && /^(\d+-?|-)$/.test(dest)) return;
      break;
  }
  if (!destNode && op.endsWith("-")) return;
  if (isScratchPath(dest)) return;
  const target = dest === null ? `a file whose name is computed at run time (${shown})` : `the file ${shown}`;
  refuse(
    `redirection \`${op}\` writes to ${target}; a read-only session cannot create or change files (write findings with write_output, or scratch files under /tmp)`,
  );
}

function checkAssignment(node: SyntaxNode): void {
  const nameNode = children(node).find((c) => c.field === "name")?.node;
  const name = nameNode?.text ?? "";
  if (dangerousVariable(name)) {
    refuse(
      `setting ${name} changes which code programs load or run (an environment-variable trick the check does not allow); drop the assignment`,
    );
  }
}
