// rt as a Unix tool: paths relative to the current directory (inside the root),
// output paths likewise, the other faces unchanged; no deletion by an empty
// standard input; messages in the command line's own terms; colour, streamed
// output and a progress line on a real pseudo-terminal, none through a pipe.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { git, lines, rt, tempTree, treeHash } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { commandHelp, mainHelp } from "../../src/faces/cli/main.ts";
import { rtOnPty } from "./pty.ts";
import { COMMANDS } from "../../src/faces/cli/commands.ts";
import { TOOLS, jsonSchemaOf, toolNames } from "../../src/tools/registry.ts";
import { GREP_DEFAULT_CAP, MAX_LINE_CHARS, READ_DEFAULT_LIMIT, READ_MAX_OUTPUT_BYTES } from "../../src/base/limits.ts";

function repo() {
  const root = tempTree({
    "README.md": "needle at the top\n",
    "pkg/utils.py": "def helper():\n    return 'needle'\n",
    "pkg/sub/deep.txt": "a needle deep down\n",
    "pkg/sub/other.md": "nothing here\n",
    "lib/x.ts": "export const needle = 1;\n",
  });
  git(root, "init", "-q");
  return root;
}

test("in a subdirectory, relative paths are relative to it and output paths too (open, read, grep, find, ls, bash)", async () => {
  const root = repo();
  const cwd = path.join(root, "pkg");
  // One round trip through the executable for each kind of path (input, output, bash's directory, refused);
  // the other cases through the same main in the long-lived worker (test/rtMain.ts).
  const open = await rt(["open", "utils.py:1"], { cwd });
  assert.equal(open.code, 0, open.stderr);
  assert.match(open.stdout, /^--- utils\.py \(lines 1-2 of 2\) ---\n1: def helper\(\):\n/);
  assert.equal((await rtMain(["read", "sub/deep.txt"], { cwd })).stdout, "   1: a needle deep down\n");
  assert.equal(
    (await rtMain(["grep", "needle", "."], { cwd })).stdout,
    "sub/deep.txt:1: a needle deep down\nutils.py:2:     return 'needle'\n",
  );
  assert.equal(
    (await rtMain(["grep", "needle"], { cwd })).stdout,
    "sub/deep.txt:1: a needle deep down\nutils.py:2:     return 'needle'\n",
    "default: the current directory",
  );
  assert.equal(
    (await rt(["grep", "needle", ".."], { cwd })).stdout,
    "../README.md:1: needle at the top\n../lib/x.ts:1: export const needle = 1;\nsub/deep.txt:1: a needle deep down\nutils.py:2:     return 'needle'\n",
  );
  assert.equal((await rtMain(["grep", "needle", "-l", "../lib"], { cwd })).stdout, "../lib/x.ts\n");
  assert.equal((await rtMain(["grep", "needle", "-c"], { cwd })).stdout, "sub/deep.txt:1\nutils.py:1\n");
  assert.equal((await rtMain(["find", "deep"], { cwd })).stdout, "sub/deep.txt\n");
  assert.equal((await rtMain(["find", "*.ts", ".."], { cwd })).stdout, "../lib/x.ts\n");
  assert.match((await rtMain(["ls"], { cwd })).stdout, /sub\/\n.*utils\.py\n$/);
  assert.match((await rtMain(["ls", "--tree", "sub"], { cwd })).stdout, /^sub\/\n/);
  assert.equal((await rt(["bash", "pwd"], { cwd })).stdout, `${cwd}\n`, "bash runs in the current directory");
  assert.equal((await rtMain(["bash", "--cwd", "sub", "pwd"], { cwd })).stdout, `${path.join(cwd, "sub")}\n`);
  const gf = await rtMain(["grep-file", "return", "utils.py"], { cwd });
  assert.equal(gf.stdout, "2:     return 'needle'\n");
  // An absolute path inside the root works from anywhere; one outside is refused, named as given.
  assert.equal((await rtMain(["read", path.join(root, "README.md")], { cwd })).stdout, "   1: needle at the top\n");
  const out = await rt(["read", "../../etc/passwd"], { cwd });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /path is outside the workspace root/);
  // Errors name the path as the user wrote it.
  const missing = await rtMain(["open", "nope.py"], { cwd });
  assert.equal(missing.stderr, "rt open: nope.py: file not found\n");
});

test("edits from a subdirectory change the file the relative path names; undo too", async () => {
  const root = repo();
  const cwd = path.join(root, "pkg");
  const e = await rt(["edit", "utils.py", "2", "2"], { cwd, input: "    return 'changed'\n" });
  assert.equal(e.code, 0, e.stderr);
  assert.equal(fs.readFileSync(path.join(root, "pkg/utils.py"), "utf8"), "def helper():\n    return 'changed'\n");
  assert.ok(!e.stdout.includes("pkg/utils.py"), `shown relative to the current directory: ${e.stdout}`);
  const u = await rt(["undo", "utils.py"], { cwd });
  assert.equal(u.code, 0, u.stderr);
  assert.equal(fs.readFileSync(path.join(root, "pkg/utils.py"), "utf8"), "def helper():\n    return 'needle'\n");
});

test("invariant: from any directory inside the root, rt grep shows the root's matches under it, with paths relative to it", async () => {
  const files: Record<string, string> = {};
  const dirs = ["", "a", "a/b", "a/b/c", "d", "d/e"];
  let k = 0;
  for (const d of dirs) for (let i = 0; i < 3; i++) files[path.posix.join(d, `f${k++}.txt`)] = `x\nneedle ${k}\ny\n`;
  const root = tempTree(files);
  git(root, "init", "-q");
  const all = (await rt(["grep", "needle"], { cwd: root })).stdout.trimEnd().split("\n");
  for (const d of dirs.filter(Boolean)) {
    const here = await rt(["grep", "needle"], { cwd: path.join(root, d) });
    const want = all.filter((l) => l.startsWith(`${d}/`)).map((l) => l.slice(d.length + 1));
    assert.deepEqual(here.stdout.trimEnd().split("\n"), want, d);
    // The whole root from there: the same lines, paths relative to d.
    const up = path.posix.relative(d, "") || ".";
    const everything = await rt(["grep", "needle", up], { cwd: path.join(root, d) });
    const mapped = everything.stdout
      .trimEnd()
      .split("\n")
      .map((l) => {
        const [p, ...rest] = l.split(":");
        return [path.posix.normalize(path.posix.join(d, p)), ...rest].join(":");
      });
    assert.deepEqual(mapped.sort(), [...all].sort(), `${d}: ${up}`);
  }
});

test("--root: from inside it paths are relative to the current directory; from outside, to the root (as before)", async () => {
  const root = repo();
  const outside = tempTree();
  const a = await rt(["--root", root, "grep", "needle", "sub"], { cwd: path.join(root, "pkg") });
  assert.equal(a.stdout, "sub/deep.txt:1: a needle deep down\n");
  const b = await rt(["--root", root, "grep", "needle", "pkg/sub"], { cwd: outside });
  assert.equal(b.stdout, "pkg/sub/deep.txt:1: a needle deep down\n");
  const c = await rt(["--root", root, "open", "pkg/utils.py"], { cwd: outside });
  assert.match(c.stdout, /^--- pkg\/utils\.py \(lines 1-2 of 2\) ---/);
  const d = await rt(["--root", root, "bash", "pwd"], { cwd: outside });
  assert.equal(d.stdout, `${root}\n`, "outside the root, bash runs at the root");
});

test("the JSON face keeps paths relative to the root, wherever it is started", async () => {
  const root = repo();
  const cwd = path.join(root, "pkg");
  const r = JSON.parse(
    (await rt(["call", "grep", "--args", JSON.stringify({ pattern: "needle", path: "pkg" })], { cwd })).stdout,
  );
  assert.deepEqual(
    r.matches.map((m: { file: string }) => m.file),
    ["pkg/sub/deep.txt", "pkg/utils.py"],
  );
  const o = JSON.parse(
    (await rt(["call", "open", "--args", JSON.stringify({ path: "pkg/utils.py" })], { cwd })).stdout,
  );
  assert.equal(o.path, "pkg/utils.py");
});

test("rt edit with an empty standard input refuses (the file is untouched) unless --delete; rt insert likewise", async () => {
  const root = tempTree({ "f.py": "a = 1\nb = 2\nc = 3\n" });
  const before = treeHash(root);
  const r = await rt(["edit", "f.py", "2", "3"], { cwd: root, input: "" });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^rt edit: standard input is empty, which would delete lines 2-3; to delete them pass --delete \(or run rt delete f\.py 2 3\)\n/,
  );
  const i = await rt(["insert", "f.py", "2"], { cwd: root, input: "" });
  assert.equal(i.code, 2);
  assert.match(i.stderr, /^rt insert: standard input is empty: nothing to insert/);
  const both = await rt(["edit", "f.py", "2", "2", "--delete"], { cwd: root, input: "x = 9\n" });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--delete takes no standard input/);
  assert.equal(treeHash(root), before, "nothing changed");
  const d = await rt(["edit", "f.py", "2", "2", "--delete"], { cwd: root, input: "" });
  assert.equal(d.code, 0, d.stderr);
  assert.equal(fs.readFileSync(path.join(root, "f.py"), "utf8"), "a = 1\nc = 3\n");
});

test("messages in the command line's terms: which argument is missing, what a flag accepts, never a JSON schema", async () => {
  const root = tempTree({ "f.txt": lines(5) });
  const cases: Array<[string[], string]> = [
    [["edit", "f.txt", "5"], "rt edit: missing END"],
    [["edit", "f.txt"], "rt edit: missing START and END"],
    [["insert", "f.txt"], "rt insert: missing LINE"],
    [["delete", "f.txt", "2"], "rt delete: missing END"],
    [["grep"], "rt grep: missing PATTERN"],
    [["grep", "x", "--limit", "-1"], "rt grep: --limit must be at least 1, not -1"],
    [["grep", "x", "--limit=0"], "rt grep: --limit must be at least 1, not 0"],
    [["grep", "x", "--limit", "ten"], 'rt grep: --limit must be a whole number of at least 1, not "ten"'],
    [["grep", "x", "-C", "-2"], "rt grep: --context must be at least 0 (and at most 50), not -2"],
    [["grep", "x", "-A", "51"], "rt grep: --after-context must be at most 50, not 51"],
    [["grep", ""], "rt grep: PATTERN must not be empty"],
    [["bash", "--timeout", "601", "true"], "rt bash: --timeout must be at most 600, not 601"],
    [
      ["grep", "x", "--fixed"],
      "rt grep: Unknown option '--fixed' (did you mean --fixed-strings?); --help lists the options",
    ],
    [
      ["read", "f.txt", "--limt", "2"],
      "rt read: Unknown option '--limt' (did you mean --limit?); --help lists the options",
    ],
    [["read", "f.txt", "--ids=yes"], "rt read: --ids takes no value"],
  ];
  // The first through the executable, the others through the same main in the long-lived worker (test/rtMain.ts).
  for (const [i, [args, first]] of cases.entries()) {
    const r = await (i === 0 ? rt : rtMain)(args, { cwd: root, input: "" });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.split("\n")[0], first, args.join(" "));
    assert.ok(!/schema|"type":|additionalProperties/.test(r.stderr), `no JSON schema: ${r.stderr}`);
    assert.match(r.stderr, /\nUsage: rt /);
  }
});

test("rt grep on a binary file says it is binary (exit 1); a search with no match exits 1 with nothing on standard output", async () => {
  const root = tempTree({
    "logo.png": Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      Buffer.from("IHDR needle"),
    ]),
    "a.txt": "hay\n",
  });
  const b = await rt(["grep", "needle", "logo.png"], { cwd: root });
  assert.equal(b.code, 1);
  assert.match(b.stderr, /^rt grep: logo\.png: binary file \(PNG image, 23 B\); not searched/);
  const gf = await rt(["grep-file", "needle", "logo.png"], { cwd: root });
  assert.equal(gf.code, 1);
  assert.match(gf.stderr, /logo\.png: binary file \(PNG image/);
  const none = await rt(["grep", "needle", "a.txt"], { cwd: root });
  assert.deepEqual([none.code, none.stdout], [1, ""]);
  // The exit code composes like grep's.
  const sh = execFileSync(
    "sh",
    [
      "-c",
      `"${process.execPath}" "${path.resolve("dist/cli.js")}" grep hay >/dev/null && echo found; "${process.execPath}" "${path.resolve("dist/cli.js")}" grep zzz 2>/dev/null || echo none`,
    ],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(sh, "found\nnone\n");
});

const ESC = "\x1b[";

test("on a terminal: paths, line numbers and matches in colour; none with NO_COLOR or through a pipe", async () => {
  const root = repo();
  const t = await rtOnPty(["grep", "needle", "pkg"], { cwd: root });
  assert.equal(t.code, 0, t.output);
  assert.ok(
    t.output.includes(`${ESC}35mpkg/sub/deep.txt${ESC}0m:${ESC}32m1${ESC}0m: a ${ESC}1;31mneedle${ESC}0m deep down`),
    JSON.stringify(t.output),
  );
  const rx = await rtOnPty(["grep", "ne+d[a-z]+", "-i", "README.md"], { cwd: root });
  assert.ok(rx.output.includes(`${ESC}32m1${ESC}0m: ${ESC}1;31mneedle${ESC}0m at the top`), JSON.stringify(rx.output));
  const o = await rtOnPty(["open", "pkg/utils.py:2"], { cwd: root });
  assert.ok(o.output.includes(`${ESC}35mpkg/utils.py${ESC}0m`), JSON.stringify(o.output));
  assert.ok(o.output.includes(`${ESC}32m2${ESC}0m:     return`), JSON.stringify(o.output));
  const no = await rtOnPty(["grep", "needle", "pkg"], { cwd: root, env: { NO_COLOR: "1" } });
  assert.ok(!no.output.includes(ESC), JSON.stringify(no.output));
  assert.ok(no.output.includes("pkg/sub/deep.txt:1: a needle deep down"));
  const piped = await rt(["grep", "needle", "pkg"], { cwd: root });
  assert.ok(!piped.stdout.includes("\x1b"));
});

test("on a terminal, rt bash streams output as it comes; through a pipe it arrives at the end", async () => {
  const root = repo();
  const cmd = "echo first; sleep 1.5; echo second";
  const t = await rtOnPty(["bash", cmd], { cwd: root });
  assert.equal(t.code, 0, t.output);
  const first = t.chunks.find((c) => c.text.includes("first"))!;
  const second = t.chunks.find((c) => c.text.includes("second"))!;
  assert.ok(first && second, JSON.stringify(t.chunks));
  assert.ok(second.ms - first.ms >= 1000, `"first" arrived ${second.ms - first.ms} ms before "second": streamed`);
  assert.equal(t.output.replace(/\r/g, ""), "first\nsecond\n");
  const piped = await rt(["bash", cmd], { cwd: root });
  assert.equal(piped.stdout, "first\nsecond\n");
  const failed = await rtOnPty(["bash", "echo out; echo err >&2; exit 3"], { cwd: root });
  assert.equal(failed.code, 3);
  assert.equal(failed.output.replace(/\r/g, ""), "out\nerr\n");
});

test("on a terminal, a search that takes over a second shows a progress line on standard error, erased before the result", async () => {
  const root = repo();
  const fifo = path.join(root, "slow.fifo");
  execFileSync("mkfifo", [fifo]);
  // ripgrep blocks reading the FIFO until something writes it: a search that takes ~2.5 s.
  // The writer's open blocks until ripgrep opens the FIFO, so the 2.5 s count from
  // the search's start, not from rt's (which is slow under load).
  const writer = spawn("sh", ["-c", 'exec 3>"$0"; sleep 2.5; echo "needle in the pipe" >&3', fifo], {
    stdio: "ignore",
  });
  try {
    const t = await rtOnPty(["grep", "needle", "slow.fifo"], { cwd: root, env: { NO_COLOR: "1" } });
    assert.equal(t.code, 0, t.output);
    assert.match(t.output, /\r\x1b\[2Krt grep: searching.* \(\d+ s\)/, JSON.stringify(t.output));
    const progressAt = t.chunks.find((c) => c.text.includes("rt grep: searching"))!.ms;
    assert.ok(progressAt >= 900, `not before a second (${progressAt} ms)`);
    const last = t.output.lastIndexOf("\r\x1b[2K");
    assert.ok(
      t.output.slice(last).replace("\r\x1b[2K", "").startsWith("1: needle in the pipe") ||
        t.output.slice(last).includes("needle in the pipe"),
      JSON.stringify(t.output),
    );
  } finally {
    writer.kill();
  }
  // Through a pipe: no progress line.
  const fifo2 = path.join(root, "slow2.fifo");
  execFileSync("mkfifo", [fifo2]);
  const w2 = spawn("sh", ["-c", 'exec 3>"$0"; sleep 1.5; echo needle >&3', fifo2], { stdio: "ignore" });
  const piped = await rt(["grep", "needle", "slow2.fifo"], { cwd: root });
  w2.kill();
  assert.equal(piped.stderr, "");
  assert.equal(piped.stdout, "slow2.fifo:1: needle\n");
});

test("rt -p with --output-format json prints a JSON error object when no model is reachable (stream-json an error event)", async () => {
  const root = tempTree();
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  // A key is set, so rt does not offer its local model instead (the zero-setup path: local-consent.test.ts).
  const env = {
    OLLAMA_HOST: `http://127.0.0.1:${port}`,
    XDG_CONFIG_HOME: tempTree(),
    OPENAI_API_KEY: undefined,
    ANTHROPIC_API_KEY: "sk-ant-unused",
    OPENAI_BASE_URL: undefined,
    ANTHROPIC_BASE_URL: undefined,
  };
  const r = await rt(["-p", "hello", "--output-format", "json"], { cwd: root, env });
  assert.equal(r.code, 2);
  const obj = JSON.parse(r.stdout);
  assert.deepEqual(
    [obj.type, obj.is_error, obj.result, obj.error.kind, obj.exit_code],
    ["result", true, "", "unreachable", 2],
  );
  assert.match(obj.error.message, /^cannot reach a model\. Tried Ollama at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(r.stderr, /^rt run: cannot reach a model/, "the person reading stderr still gets the message");
  const s = await rt(["run", "hello", "--output-format", "stream-json"], { cwd: root, env });
  assert.equal(s.code, 2);
  const ev = JSON.parse(s.stdout.trim());
  assert.deepEqual([ev.type, ev.kind], ["error", "unreachable"]);
  const text = await rt(["-p", "hello"], { cwd: root, env });
  assert.deepEqual([text.code, text.stdout], [2, ""], "text format: nothing on stdout");
});

test("descriptions speak to the reader: no seed numbers in help texts or in the description of any tool in the registry", async () => {
  const root = tempTree();
  // The help texts as rt prints them (the executable's `rt --help` is mainHelp(), as a check that they are).
  const help = await rt(["--help"], { cwd: root });
  assert.equal(help.stdout, `${await mainHelp()}\n`);
  assert.doesNotMatch(help.stdout, /seed \d/i);
  for (const c of COMMANDS) assert.doesNotMatch(commandHelp(c), /seed \d/i, c.name);
  const list = JSON.parse((await rt(["tools", "--json"], { cwd: root })).stdout) as Array<{
    name: string;
    description: string;
    inputSchema: unknown;
  }>;
  // Every registered tool, the seeds' compatibility tools (edit_range, insert_at, edit_file) included.
  assert.deepEqual(
    list.map((t) => t.name),
    toolNames(),
  );
  for (const t of list) assert.doesNotMatch(`${t.description} ${JSON.stringify(t.inputSchema)}`, /seed/i, t.name);
  // What the agent and the MCP face are given, preview descriptions included.
  for (const tool of TOOLS)
    assert.doesNotMatch(`${tool.description} ${JSON.stringify(jsonSchemaOf(tool))}`, /seed/i, tool.name);
  // Numbers in descriptions come from src/base/limits.ts.
  const grep = list.find((x) => x.name === "grep")!.description;
  assert.ok(grep.includes(`at most ${GREP_DEFAULT_CAP} matches`));
  const read = list.find((x) => x.name === "read")!.description;
  assert.ok(
    read.includes(`${READ_DEFAULT_LIMIT} lines`) &&
      read.includes(`${READ_MAX_OUTPUT_BYTES / 1024} KB`) &&
      read.includes(`${MAX_LINE_CHARS} characters`),
  );
});
