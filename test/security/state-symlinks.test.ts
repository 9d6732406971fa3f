// A cloned repository that ships its own `.rt/` with symlinks in it: each of
// rt's state places (sessions, shell spills, saved tool outputs, locks, the
// journal of one file, line IDs, indexes, views, write_output's directory, the
// old `.rt/bin`, `.rt` itself) is a symlink to a directory outside the root
// holding a "private key", one such directory per place (places that can be
// links at the same time share a session; each outside directory is checked). A whole agent session then runs every kind of
// writer (a bash command with a big output, a tool output over the agent's
// limit, an edit, an undo, write_output, the session log), and a
// safe-read-only `rt bash` spills its output. Invariants: nothing outside the
// root is created, changed or removed, and no byte of the outside files ends up
// in the repository. rt still answers: refused state is skipped or reported
// as a tool error, never followed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { rt, tempTree, treeHash } from "../helpers.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { StateStore } from "../../src/workspace/state.ts";

const ollama = scriptedOllama();
const SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- outside-secret-bytes 7f3a9c";
const CALC = "def add(a, b):\n    return a - b\n";

/** Every file below `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && fs.readFileSync(p).includes(needle)) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

function listing(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      out.push(path.relative(dir, p));
      if (fs.lstatSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.join("\n");
}

const PLACES = [
  "sessions",
  "shell",
  "tool-output",
  "locks",
  "bin",
  "ids",
  "index",
  "out",
  "journal",
  `journal/${StateStore.keyFor("src/calc.py")}`,
  "view.json",
  ".rt",
];

/**
 * The places symlinked together in one session. rt refuses each state place on its own (a refused
 * place is skipped or reported, the others keep working), so one session can carry several links,
 * each to an outside directory of its own that is checked on its own. A place inside another
 * (journal/KEY in journal) and `.rt` itself need sessions of their own.
 */
const GROUPS = [PLACES.filter((p) => p !== "journal" && p !== ".rt"), ["journal"], [".rt"]];

/** The outside directory a place's link leads to (its own, so a write there names the place). */
const outsideName = (place: string) => `outside-${place.replace(/[/.]/g, "_")}`;

for (const group of GROUPS) {
  const names = group.map((p) => `.rt/${p === ".rt" ? "" : p}`).join(", ");
  test(`symlinked ${names} pointing outside: a whole agent session writes nothing there and reads nothing from there`, async () => {
    const files: Record<string, string> = { "root/src/calc.py": CALC, "root/big.txt": "x".repeat(30_000) + "\n" };
    for (const place of group) {
      files[`${outsideName(place)}/id_rsa`] = `${SECRET} ${place}\n`;
      files[`${outsideName(place)}/sub/known`] = `${SECRET} ${place}\n`;
    }
    const parent = tempTree(files);
    const root = path.join(parent, "root");
    const outsides = new Map(group.map((place) => [place, path.join(parent, outsideName(place))]));
    for (const [place, outside] of outsides) {
      if (place === ".rt") fs.symlinkSync(outside, path.join(root, ".rt"));
      else {
        fs.mkdirSync(path.dirname(path.join(root, ".rt", place)), { recursive: true });
        fs.writeFileSync(path.join(root, ".rt", ".gitignore"), "*\n");
        const target = place === "view.json" ? path.join(outside, "id_rsa") : outside;
        fs.symlinkSync(target, path.join(root, ".rt", place));
      }
    }
    const before = new Map([...outsides].map(([p, o]) => [p, { hash: treeHash(o, []), list: listing(o) }]));
    // Transient files count too (a lock file created and removed again): watch every outside directory.
    const events = new Map<string, string[]>(group.map((p) => [p, []]));
    const watchers = [...outsides].flatMap(([place, outside]) =>
      [outside, path.join(outside, "sub")].map((d) =>
        fs.watch(d, (kind, name) =>
          events.get(place)!.push(`${kind} ${path.relative(outside, path.join(d, String(name)))}`),
        ),
      ),
    );

    ollama.server.script(
      reply.toolCall("bash", { command: "seq 1 40000" }), // > 50 KB: spilled to .rt/shell
      reply.toolCall("read", { path: "big.txt" }), // > 20,000 characters: saved to .rt/tool-output
      reply.toolCall("open", { path: "src/calc.py" }), // view.json, line IDs
      reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }), // lock, journal
      reply.toolCall("undo_edit", { path: "src/calc.py" }),
      reply.toolCall("write_output", { path: "notes.md", content: "findings\n" }),
      reply.text("Done."),
    );
    const r = await rt(["run", "--model", "ollama/test-model", "--approval", "auto", "go"], {
      cwd: root,
      env: ollama.env(),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Done.\n");
    // The safe-read-only profile spills a big output too (inside the sandbox; where there is none, rt refuses to run it).
    const s = await rt(["--profile", "safe-read-only", "bash", "seq 1 40000"], { cwd: root });
    assert.ok(s.code === 0 || /sandbox/i.test(s.stdout + s.stderr), s.stderr);
    const o = await rt(["open", "src/calc.py"], { cwd: root });
    assert.equal(o.code, 0, o.stderr);

    await new Promise((r) => setTimeout(r, 50));
    for (const w of watchers) w.close();
    for (const [place, outside] of outsides) {
      const where = `.rt/${place === ".rt" ? "" : place}`;
      assert.deepEqual(
        events.get(place),
        [],
        `${where}: nothing created, written or removed there, not even for a moment`,
      );
      assert.equal(listing(outside), before.get(place)!.list, `${where}: nothing created or removed there`);
      assert.equal(treeHash(outside, []), before.get(place)!.hash, `${where}: nothing changed there`);
    }
    assert.deepEqual(filesContaining(root, "outside-secret-bytes"), [], "no outside byte came into the repository");
    // What the model was shown holds no outside byte either.
    for (const c of ollama.server.completions) assert.doesNotMatch(JSON.stringify(c.body), /outside-secret-bytes/);
  });
}

test("rt export --output never writes through a symlink: inside the workspace none at any step, elsewhere none at the file", async () => {
  const parent = tempTree({ "root/a.txt": "a\n", "outside/id_rsa": `${SECRET}\n`, "elsewhere/.keep": "" });
  const root = path.join(parent, "root");
  const outside = path.join(parent, "outside");
  ollama.server.script(reply.text("An answer."));
  const r = await rt(["run", "--model", "ollama/test-model", "question"], { cwd: root, env: ollama.env() });
  assert.equal(r.code, 0, r.stderr);
  const id = fs.readdirSync(path.join(root, ".rt", "sessions"))[0].slice(0, -6);
  fs.symlinkSync(outside, path.join(root, "docs"));
  fs.symlinkSync(path.join(outside, "id_rsa"), path.join(root, "export.md"));
  fs.symlinkSync(path.join(outside, "id_rsa"), path.join(parent, "elsewhere", "linked.md"));
  const before = treeHash(outside, []);
  for (const target of ["docs/out.md", "export.md", path.join(parent, "elsewhere", "linked.md")]) {
    const e = await rt(["export", id, "--output", target], { cwd: root, env: ollama.env() });
    assert.equal(e.code, 1, `${target}: ${e.stderr}`);
    assert.match(e.stderr, /symbolic link/, target);
  }
  assert.equal(treeHash(outside, []), before, "nothing written outside through a link");
  // Plain places work: inside the workspace (a new directory is not made) and elsewhere (the user's own choice).
  for (const target of ["session.md", path.join(parent, "elsewhere", "session.md")]) {
    const e = await rt(["export", id, "--output", target], { cwd: root, env: ollama.env() });
    assert.equal(e.code, 0, e.stderr);
    assert.match(fs.readFileSync(path.resolve(root, target), "utf8"), /An answer\./);
  }
});
