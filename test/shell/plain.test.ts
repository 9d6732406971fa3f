// Plain command lines skip the shell parser (a first sandboxed command would
// otherwise spend most of its time loading tree-sitter). The invariant that
// makes this safe: for every line plainWords accepts, tree-sitter-bash reads
// exactly one command, with nothing else in the tree (no redirection,
// assignment, expansion, keyword...), whose name and arguments are literally
// those words; so the rules see the same argv either way. Checked over
// thousands of generated lines built from the rules' own vocabulary and the
// characters plain words may contain. The same holds for plain command lists
// (plain commands joined by `|`, `||`, `&&`, `;`): tree-sitter reads only
// pipelines and lists around commands whose words are exactly the pieces'.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkPlainCommand,
  checkShellCommand,
  literalOf,
  plainCommands,
  plainWords,
  type SyntaxNode,
} from "../../src/shell/check.ts";
import { loadBashParser } from "../../src/shell/parser.ts";

const parse = await loadBashParser();

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  "ls",
  "cat",
  "rg",
  "grep",
  "head",
  "tail",
  "wc",
  "echo",
  "true",
  "false",
  "git",
  "rm",
  "mv",
  "cp",
  "sed",
  "find",
  "xargs",
  "bash",
  "sh",
  "env",
  "timeout",
  "nice",
  "sudo",
  "su",
  "chmod",
  "chown",
  "tee",
  "dd",
  "truncate",
  "touch",
  "mkdir",
  "ln",
  "curl",
  "wget",
  "pip",
  "npm",
  "python3",
  "node",
  "make",
  "tar",
  "unzip",
  "kill",
  "pkill",
  "crontab",
  "systemctl",
  "ssh",
  "scp",
  "rsync",
  "install",
  "patch",
  "perl",
  "awk",
  "vim",
  "less",
  "watch",
  "nohup",
  "setsid",
  "eval",
  "exec",
  "source",
  ".",
  "builtin",
  "command",
  "nc",
  "socat",
  "docker",
  "apt-get",
  "/bin/rm",
  "./run.sh",
  "../x",
  "-",
  "g++",
  "a@b",
  "x%",
  "c+:",
  "test",
  "printf",
  "sort",
  "uniq",
  "sqlite3",
  "psql",
  "chattr",
  "mount",
  "umount",
  "shred",
  "journalctl",
];
const OPERANDS = [
  "-i",
  "-rf",
  "-r",
  "-f",
  "--force",
  "-delete",
  "-exec",
  "push",
  "commit",
  "status",
  "log",
  "--oneline",
  "-n",
  "5",
  "-c",
  "ls",
  "rm",
  "a=b",
  "--x=y",
  "PATH=/tmp",
  "LD_PRELOAD=x.so",
  ".",
  "..",
  "/",
  "/tmp/x",
  "/etc/passwd",
  "/dev/null",
  "data.txt",
  "src/app.py",
  "%1",
  "@",
  ":",
  "+x",
  "0644",
  "777",
  "-",
  "--",
  "=",
  "==",
  "a,b",
  "1.5",
  "0x1f",
  "if",
  "then",
  "do",
  "done",
  "export",
  "time",
  "in",
  "fi",
  "-9",
  "1",
  "reset",
  "--hard",
  "clean",
  "-fdx",
  "install",
  "-g",
  "checkout",
  "HEAD",
  "-s",
  "-o",
  "out.txt",
  "-w",
  "--output=/tmp/o",
  "origin",
  "main",
  "-e",
  "s/a/b/",
  "u+s",
  "root:root",
  "1:2",
  "x@y",
  "-delete",
  "-print",
  "bash",
  "-lc",
  "id",
];
const PLAIN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+,=-";

function randomWord(r: () => number): string {
  const n = 1 + Math.floor(r() * 6);
  let w = "";
  for (let i = 0; i < n; i++) w += PLAIN_CHARS[Math.floor(r() * PLAIN_CHARS.length)];
  return w;
}

function blank(r: () => number): string {
  const pick = [" ", "  ", "\t", " \t "];
  return pick[Math.floor(r() * pick.length)];
}

/** The argv tree-sitter gives a line: the words of its only command, or a description of why the tree is not one plain command. */
function argvFromTree(line: string): string[] | string {
  const parsed = parse(line);
  try {
    const root = parsed.root;
    const named: SyntaxNode[] = [];
    for (let i = 0; i < root.childCount; i++) {
      const c = root.child(i)!;
      if (c.isNamed) named.push(c);
    }
    if (root.type !== "program" || named.length !== 1 || named[0].type !== "command")
      return `not one command: ${named.map((n) => n.type).join(",")}`;
    const cmd = named[0];
    let name: string | null = null;
    const args: Array<string | null> = [];
    for (let i = 0; i < cmd.childCount; i++) {
      const c = cmd.child(i)!;
      const field = cmd.fieldNameForChild(i);
      if (field === "name") name = literalOf(c, true);
      else if (field === "argument") args.push(literalOf(c));
      else return `unexpected part of the command: ${c.type}`;
    }
    if (name === null || args.some((a) => a === null)) return "a word that is not literal";
    const hasError = (n: SyntaxNode): boolean =>
      n.isError || n.isMissing || Array.from({ length: n.childCount }, (_, i) => n.child(i)!).some(hasError);
    if (hasError(root)) return "a syntax error";
    return [name, ...(args as string[])];
  } finally {
    parsed.dispose?.();
  }
}

test("every line plainWords accepts is, to tree-sitter-bash, one command with exactly those literal words", () => {
  const r = rng(20240509);
  let plain = 0;
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const words = [r() < 0.85 ? NAMES[Math.floor(r() * NAMES.length)] : randomWord(r)];
    const n = Math.floor(r() * 6);
    for (let k = 0; k < n; k++) words.push(r() < 0.6 ? OPERANDS[Math.floor(r() * OPERANDS.length)] : randomWord(r));
    let line = words.map((w, k) => (k ? blank(r) : "") + w).join("");
    if (r() < 0.2) line = blank(r) + line;
    if (r() < 0.2) line += blank(r);
    lines.push(line);
  }
  const problems: string[] = [];
  for (const line of lines) {
    const words = plainWords(line);
    if (!words) continue;
    plain++;
    const fromTree = argvFromTree(line);
    if (typeof fromTree === "string" || JSON.stringify(fromTree) !== JSON.stringify(words))
      problems.push(`${JSON.stringify(line)}: plain ${JSON.stringify(words)}, tree-sitter ${JSON.stringify(fromTree)}`);
    if (problems.length > 20) break;
  }
  assert.deepEqual(problems, []);
  assert.ok(plain > 3000, `only ${plain} generated lines were plain`);
});

/** The commands tree-sitter reads in a line, in order, when pipelines and lists of plain commands are all it holds; else why not. */
function commandsFromTree(line: string): string[][] | string {
  const parsed = parse(line);
  try {
    const hasError = (n: SyntaxNode): boolean =>
      n.isError || n.isMissing || Array.from({ length: n.childCount }, (_, i) => n.child(i)!).some(hasError);
    if (hasError(parsed.root)) return "a syntax error";
    const out: string[][] = [];
    const visit = (node: SyntaxNode): string | undefined => {
      for (let i = 0; i < node.childCount; i++) {
        const c = node.child(i)!;
        if (!c.isNamed) {
          if (!["|", "||", "&&", ";"].includes(c.type)) return `operator ${c.type}`;
          continue;
        }
        if (c.type === "pipeline" || c.type === "list") {
          const why = visit(c);
          if (why) return why;
          continue;
        }
        if (c.type !== "command") return `unexpected node ${c.type}`;
        const one = argvFromTree(c.text);
        if (typeof one === "string") return one;
        out.push(one);
      }
      return undefined;
    };
    return visit(parsed.root) ?? out;
  } finally {
    parsed.dispose?.();
  }
}

const OPERATORS = [
  "|",
  "||",
  "&&",
  ";",
  " | ",
  " || ",
  " && ",
  "; ",
  " ;",
  "|&",
  "&",
  " & ",
  ";;",
  "|||",
  "&&&",
  "| |",
];

function randomList(r: () => number): string {
  const commands: string[] = [];
  for (let c = 1 + Math.floor(r() * 4); c > 0; c--) {
    const words = [r() < 0.85 ? NAMES[Math.floor(r() * NAMES.length)] : randomWord(r)];
    for (let k = Math.floor(r() * 4); k > 0; k--)
      words.push(r() < 0.6 ? OPERANDS[Math.floor(r() * OPERANDS.length)] : randomWord(r));
    commands.push(words.map((w, k) => (k ? blank(r) : "") + w).join(""));
  }
  let line = commands[0];
  for (const c of commands.slice(1))
    line += (r() < 0.9 ? OPERATORS[Math.floor(r() * 5)] : OPERATORS[Math.floor(r() * OPERATORS.length)]) + c;
  if (r() < 0.1) line += OPERATORS[Math.floor(r() * OPERATORS.length)];
  if (r() < 0.1) line = OPERATORS[Math.floor(r() * OPERATORS.length)] + line;
  return line;
}

test("every list plainCommands accepts is, to tree-sitter-bash, pipelines and lists of exactly those commands", () => {
  const r = rng(20261127);
  let plain = 0;
  const problems: string[] = [];
  for (let i = 0; i < 4000 && problems.length <= 20; i++) {
    const line = randomList(r);
    const commands = plainCommands(line);
    if (!commands) continue;
    plain++;
    const fromTree = commandsFromTree(line);
    if (typeof fromTree === "string" || JSON.stringify(fromTree) !== JSON.stringify(commands))
      problems.push(
        `${JSON.stringify(line)}: plain ${JSON.stringify(commands)}, tree-sitter ${JSON.stringify(fromTree)}`,
      );
  }
  assert.deepEqual(problems, []);
  assert.ok(plain > 2000, `only ${plain} generated lists were plain`);
  for (const line of [
    "ls |",
    "| ls",
    "ls ;; ls",
    "ls |& cat",
    "ls & cat",
    "ls &",
    "ls |||cat",
    "ls && && cat",
    "ls;",
    "a=b | ls",
    "ls | time cat",
    "ls | then",
  ]) {
    assert.equal(plainCommands(line), undefined, JSON.stringify(line));
  }
  assert.deepEqual(plainCommands("git log --oneline|head -5 && echo done; ls"), [
    ["git", "log", "--oneline"],
    ["head", "-5"],
    ["echo", "done"],
    ["ls"],
  ]);
});

test("the plain check of a list gives the verdict of the full check, the same refusal first", () => {
  const r = rng(11);
  let compared = 0;
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const line = randomList(r);
    for (const allowNet of [false, true]) {
      const fast = checkPlainCommand(line, { allowNet });
      if (!fast) continue;
      compared++;
      if (!fast.ok) refused++;
      assert.deepEqual(fast, checkShellCommand(line, parse, { allowNet }), line);
    }
  }
  assert.ok(compared > 2000 && refused > 200, `${compared} compared, ${refused} refused`);
});

test("the plain check gives the verdict of the full check, and defers to it when it needs the parser", () => {
  const r = rng(7);
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const words = [NAMES[Math.floor(r() * NAMES.length)]];
    for (let k = Math.floor(r() * 5); k > 0; k--) words.push(OPERANDS[Math.floor(r() * OPERANDS.length)]);
    const line = words.join(" ");
    for (const allowNet of [false, true]) {
      const fast = checkPlainCommand(line, { allowNet });
      if (!fast) continue;
      compared++;
      assert.deepEqual(fast, checkShellCommand(line, parse, { allowNet }), line);
    }
  }
  assert.ok(compared > 2000, `${compared} compared`);
  // Shell code inside a plain line that is not itself plain: the parser is needed.
  assert.deepEqual(checkPlainCommand("bash -c ls"), checkShellCommand("bash -c ls", parse));
  assert.equal(checkPlainCommand("bash -c a=b"), undefined);
  assert.equal(checkPlainCommand("eval PATH=/tmp"), undefined);
  assert.deepEqual(checkShellCommand("eval PATH=/tmp", parse).ok, false);
});

test("lines with any shell syntax are not plain", () => {
  for (const line of [
    "",
    "   ",
    "a=b cmd",
    "PATH=/tmp ls",
    "export X=1",
    "declare -x X=1",
    "local x",
    "unset PATH",
    "readonly X",
    "typeset X",
    "echo $HOME",
    "echo ${x}",
    "echo `id`",
    "echo $(id)",
    "ls > f",
    "ls >> f",
    "cat < f",
    "ls 2>&1",
    "ls | head",
    "ls; rm x",
    "ls && rm x",
    "ls || rm x",
    "ls &",
    "(ls)",
    "{ ls; }",
    "if true",
    "then ls",
    "for x in a",
    "while true",
    "until x",
    "case x in",
    "function f",
    "time ls",
    "coproc ls",
    "select x",
    "echo hi # comment",
    "ls\nrm x",
    "ls *.txt",
    "ls ?",
    "ls [ab]",
    "ls ~",
    "ls ~/x",
    "echo {a,b}",
    "echo 'q'",
    'echo "q"',
    "echo a\\ b",
    "! ls",
    "ls !x",
    "echo é",
    "[ -f x ]",
    "[[ x ]]",
    "ls\r",
  ]) {
    assert.equal(plainWords(line), undefined, JSON.stringify(line));
  }
  assert.deepEqual(plainWords("git log --oneline -5"), ["git", "log", "--oneline", "-5"]);
  assert.deepEqual(plainWords("\trg -n TODO src/app.py  "), ["rg", "-n", "TODO", "src/app.py"]);
});
