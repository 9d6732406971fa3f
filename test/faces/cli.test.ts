// The `rt` command line: help for everything, one-line errors plus the
// synopsis with exit 2 for usage mistakes, exit 1 for tool errors, 0 otherwise.
// Where a claim is checked over many cases (every command, every bad argument),
// the first goes through the executable and the rest through the same main in a
// long-lived worker (test/rtMain.ts), which spares a Node start per case.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { COMMANDS } from "../../src/faces/cli/commands.ts";
import { REPO, lines, rt, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

const ISSUE2_COMMANDS = ["open", "scroll", "read", "find", "grep", "grep-file", "ls", "call"];

test("rt --help (and -h, rt help) lists every command with its synopsis, exit 0", async () => {
  const dir = tempTree();
  const help = await rt(["--help"], { cwd: dir });
  assert.equal(help.code, 0);
  assert.equal(help.stderr, "");
  for (const c of COMMANDS) {
    assert.ok(help.stdout.includes(`  ${c.synopsis}\n      ${c.summary}\n`), `rt --help lists ${c.synopsis}`);
  }
  for (const name of ISSUE2_COMMANDS)
    assert.ok(
      COMMANDS.some((c) => c.name === name),
      name,
    );
  assert.match(help.stdout, /--root VALUE/);
  const h = await rt(["-h"], { cwd: dir });
  assert.equal(h.stdout, help.stdout);
  const word = await rt(["help"], { cwd: dir });
  assert.equal(word.stdout, help.stdout);
  assert.equal(word.code, 0);
});

test("rt COMMAND --help shows its synopsis and options, for every command", async () => {
  const dir = tempTree();
  const helps = await Promise.all(COMMANDS.map((c, i) => (i === 0 ? rt : rtMain)([c.name, "--help"], { cwd: dir })));
  COMMANDS.forEach((c, i) => {
    const r = helps[i];
    assert.equal(r.code, 0, c.name);
    assert.ok(r.stdout.startsWith(`Usage: ${c.synopsis}\n\n${c.summary}\n`), c.name);
    for (const opt of Object.keys(c.options))
      assert.ok(r.stdout.includes(`--${opt}`), `${c.name} --help lists --${opt}`);
  });
  const open = helps[COMMANDS.findIndex((c) => c.name === "open")];
  assert.equal((await rtMain(["help", "open"], { cwd: dir })).stdout, open.stdout);
  assert.equal((await rtMain(["--help", "open"], { cwd: dir })).stdout, open.stdout);
  const grep = await rtMain(["grep", "-h"], { cwd: dir });
  assert.match(grep.stdout, /-i, --ignore-case/);
  assert.match(grep.stdout, /-C, --context VALUE/);
  assert.match(grep.stdout, /-l, --files-with-matches/);
});

test("no command: the error, then the help, exit 2", async () => {
  const dir = tempTree();
  const r = await rt([], { cwd: dir });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  const errLines = r.stderr.split("\n");
  assert.equal(errLines[0], "rt: missing command");
  assert.equal(errLines[1], "rt — navigate, search and edit a codebase; the tool layer of the rt coding agent");
});

test("an unknown command: one line naming the closest commands, exit 2", async () => {
  const dir = tempTree();
  for (const [args, line] of [
    [["frobnicate"], 'rt: unknown command "frobnicate"; rt --help lists the commands'],
    [["help", "frobnicate"], 'rt: unknown command "frobnicate"; rt --help lists the commands'],
    [["grepp", "x"], 'rt: unknown command "grepp" (did you mean grep?); rt --help lists the commands'],
    [["opne", "f"], 'rt: unknown command "opne" (did you mean open?); rt --help lists the commands'],
    [["sql-table"], 'rt: unknown command "sql-table" (did you mean sql-tables?); rt --help lists the commands'],
    [["--bogus"], 'rt: unknown option "--bogus"; rt --help lists the commands and options'],
  ] as Array<[string[], string]>) {
    const r = await (args[0] === "frobnicate" ? rt : rtMain)(args, { cwd: dir });
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `${line}\n`, args.join(" "));
  }
});

test("bad arguments: a one-line error, then the command's synopsis, exit 2", async () => {
  const root = tempTree({ "f.txt": lines(5) });
  const cases: Array<[string[], RegExp, string]> = [
    [
      ["open", "--bogus", "f.txt"],
      /^rt open: Unknown option '--bogus'; --help lists the options$/,
      "rt open PATH[:LINE|:START-END]",
    ],
    [["read"], /^rt read: missing PATH$/, "rt read PATH [--offset N] [--limit N] [--ids]"],
    [
      ["read", "f.txt", "g.txt"],
      /^rt read: unexpected argument "g.txt"$/,
      "rt read PATH [--offset N] [--limit N] [--ids]",
    ],
    [
      ["read", "f.txt", "--limit", "-3"],
      /^rt read: --limit must be at least 1, not -3$/,
      "rt read PATH [--offset N] [--limit N] [--ids]",
    ],
    [
      ["read", "f.txt", "--limit", "2.5"],
      /^rt read: --limit must be a whole number of at least 1, not "2\.5"$/,
      "rt read PATH [--offset N] [--limit N] [--ids]",
    ],
    [
      ["read", "f.txt", "--offset"],
      /^rt read: --offset needs a value: a whole number of at least 1$/,
      "rt read PATH [--offset N] [--limit N] [--ids]",
    ],
    [
      ["read", "f.txt", "--offset", "0"],
      /^rt read: --offset must be at least 1, not 0$/,
      "rt read PATH [--offset N] [--limit N] [--ids]",
    ],
    [["find"], /^rt find: missing PATTERN$/, "rt find PATTERN [DIR] [--limit N]"],
    [
      ["grep", "x", "-C", "many"],
      /^rt grep: --context must be a whole number from 0 to 50, not "many"$/,
      "rt grep PATTERN [PATH]",
    ],
    [["grep", "x", "a", "b"], /^rt grep: unexpected argument "b"$/, "rt grep PATTERN [PATH]"],
    [["ls", "a", "b"], /^rt ls: unexpected argument "b"$/, "rt ls [DIR] [--tree] [--depth N] [-a]"],
    [["scroll", "f.txt", "x"], /^rt scroll: direction must be \+ or -, not "x"$/, "rt scroll PATH +|-"],
    [["tools", "--yaml"], /^rt tools: Unknown option '--yaml'; --help lists the options$/, "rt tools [--json]"],
  ];
  for (const [i, [args, first, synopsis]] of cases.entries()) {
    const r = await (i === 0 ? rt : rtMain)(args, { cwd: root });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    const errLines = r.stderr.trimEnd().split("\n");
    assert.match(errLines[0], first, args.join(" "));
    assert.ok(errLines[errLines.length - 1].startsWith(`Usage: ${synopsis}`), `${args.join(" ")}: ${r.stderr}`);
  }
});

test("tool errors: `rt CMD: message` on one line, exit 1; success: output on stdout, exit 0", async () => {
  const root = tempTree({ "f.txt": lines(5) });
  const e = await rt(["open", "nope.txt"], { cwd: root });
  assert.deepEqual([e.code, e.stdout, e.stderr], [1, "", "rt open: nope.txt: file not found\n"]);
  const ok = await rt(["read", "f.txt"], { cwd: root });
  assert.deepEqual([ok.code, ok.stderr], [0, ""]);
  assert.ok(ok.stdout.endsWith("   5: line 5\n"));
});

test("options may come after positionals; `--` lets a pattern start with a dash", async () => {
  const root = tempTree({ "f.txt": "--verbose flag\n-x\n" });
  const a = await rt(["grep", "-F", "--", "--verbose"], { cwd: root });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, "f.txt:1: --verbose flag\n");
  const b = await rt(["grep", "X", "f.txt", "-i"], { cwd: root });
  assert.equal(b.stdout, "2: -x\n");
});

test("rt --version, an unknown profile, rt tools", async () => {
  const root = tempTree();
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
  const v = await rt(["--version"], { cwd: root });
  assert.deepEqual([v.code, v.stdout], [0, `rt ${pkg.version}\n`]);
  const p = await rt(["--profile", "yolo", "ls"], { cwd: root });
  assert.equal(p.code, 2);
  assert.match(p.stderr, /^rt: unknown profile "yolo": use one of dev, unsafe, safe-read-only\n$/);
  const t = await rt(["tools"], { cwd: root });
  assert.equal(t.code, 0);
  assert.match(t.stdout, /^open \(also open_file_chunk\)\n    Show a 100-line window/m);
  assert.match(t.stdout, /^grep \(also search_dir\)\n/m);
  const j = await rt(["tools", "--json"], { cwd: root });
  const list = JSON.parse(j.stdout) as Array<{
    name: string;
    aliases: string[];
    readOnly: boolean;
    inputSchema: { type: string };
  }>;
  const names = list.map((x) => x.name);
  for (const n of ["read", "open", "scroll", "find", "grep", "grep_file", "ls"]) assert.ok(names.includes(n), n);
  for (const x of list) assert.equal(x.inputSchema.type, "object");
});

test("package.json: one `rt` executable, Node >= 20, ESM", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(pkg.bin), ["rt"]);
  assert.equal(pkg.type, "module");
  assert.match(pkg.engines.node, />=\s*20/);
  assert.ok(fs.readFileSync(path.join(REPO, "src", "cli.ts"), "utf8").startsWith("#!/usr/bin/env node\n"));
});
