// Notebooks: read shows cells; notebook_edit changes one cell and nothing else.
// The oracle is Jupyter's own nbformat library (Debian's python3-nbformat,
// installed by scripts/ensure-test-deps.sh): it writes the notebooks the tests
// start from, validates every result against its schema, and re-serializes it,
// which must give back the very bytes rt wrote (Jupyter's layout kept).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { rt, rtBatch, rtCall, tempTree } from "../helpers.js";
import { editNotebook, parseNotebook, renderNotebook } from "../../src/edit/notebook.js";
import { notebookSchemaErrors } from "../../src/edit/notebookSchema.js";

/** Debian's python3 (the one python3-nbformat installs into), not a pyenv shim. */
const PYTHON = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

function py(script: string, args: string[] = []): string {
  return execFileSync(PYTHON, ["-c", script, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
}

/** Notebooks written by nbformat itself: mixed cells, outputs of every kind, Unicode, quotes, backslashes. */
const MAKE_NOTEBOOKS = String.raw`
import nbformat, random, sys, os, base64
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell, new_raw_cell, new_output
out, count = sys.argv[1], int(sys.argv[2])
random.seed(7)
words = ["x", "é", "日本", '"q"', "back\\slash", "tab\t", "emoji 🙂", "</cell>", "{", "]", "\\u00e9", "line\r"]
def src():
    return "\n".join(" ".join(random.choice(words) for _ in range(random.randint(0, 5))) for _ in range(random.randint(0, 4)))
for n in range(count):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.2"}
    for i in range(random.randint(0, 7)):
        kind = random.choice(["code", "code", "markdown", "raw"])
        if kind == "code":
            outs = []
            for _ in range(random.randint(0, 3)):
                t = random.choice(["stream", "error", "execute_result", "display_data"])
                if t == "stream": outs.append(new_output("stream", name=random.choice(["stdout", "stderr"]), text=src() + "\n"))
                elif t == "error": outs.append(new_output("error", ename="ValueError", evalue=src(), traceback=["\x1b[0;31mValueError\x1b[0m", src()]))
                elif t == "execute_result": outs.append(new_output("execute_result", data={"text/plain": src()}, execution_count=i + 1))
                else: outs.append(new_output("display_data", data={"image/png": base64.b64encode(os.urandom(30)).decode(), "text/plain": "<Figure>"}))
            nb.cells.append(new_code_cell(src(), execution_count=random.choice([None, i + 1]), outputs=outs))
        elif kind == "markdown": nb.cells.append(new_markdown_cell(src()))
        else: nb.cells.append(new_raw_cell(src()))
    nbformat.write(nb, os.path.join(out, f"nb{n}.ipynb"))
`;

/** For each file: valid per nbformat, and nbformat's own serialization of it equals its bytes. */
const CHECK_NOTEBOOKS = String.raw`
import nbformat, sys, json
res = {}
for p in sys.argv[1:]:
    text = open(p, encoding="utf-8").read()
    nb = nbformat.reads(text, as_version=4)
    try:
        nbformat.validate(nb); valid = True
    except Exception as e:
        valid = str(e)[:200]
    mine = nbformat.writes(nb) + "\n"
    first = next((f"line {i + 1}: rt {a!r} / nbformat {b!r}" for i, (a, b) in enumerate(zip(text.split("\n"), mine.split("\n"))) if a != b), "")
    res[p] = {"valid": valid, "canonical": mine == text, **({"first_difference": first} if mine != text else {})}
print(json.dumps(res))
`;

function makeNotebooks(count: number): string[] {
  const dir = tempTree({}, "rt-nb-");
  py(MAKE_NOTEBOOKS, [dir, String(count)]);
  return Array.from({ length: count }, (_, i) => path.join(dir, `nb${i}.ipynb`));
}

/** A small random generator (the cases are the same every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SOURCES = [
  "",
  "x = 1",
  "print('é')\n",
  'a = "quote \\" and \\\\ backslash"',
  "# Title\n\n- item\n",
  "def f():\n    return {'k': [1, 2]}\n",
  "日本語 🙂 \u2028 sep",
  "</cell>\n<cell>",
  "tab\there",
];

test("invariant: over 300 random edits of notebooks nbformat wrote, every result is valid nbformat, in nbformat's own layout, with every untouched cell byte for byte", () => {
  const files = makeNotebooks(60);
  const outDir = tempTree({}, "rt-nb-out-");
  const rand = rng(42);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)];
  const produced: string[] = [];
  let n = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    for (let k = 0; k < 5; k++) {
      const before = parseNotebook("nb.ipynb", text);
      const ids = before.json.cells.map((c) => c.id as string);
      const mode = ids.length === 0 ? "insert" : pick(["replace", "replace", "insert", "delete"] as const);
      const cellId = mode === "insert" ? (rand() < 0.3 || ids.length === 0 ? undefined : pick(ids)) : pick(ids);
      const cellType = rand() < 0.3 ? pick(["code", "markdown", "raw"] as const) : undefined;
      const source = pick(SOURCES);
      const r = editNotebook("nb.ipynb", text, {
        mode,
        ...(cellId ? { cellId } : {}),
        ...(mode !== "delete" ? { newSource: source } : {}),
        ...(cellType ? { cellType } : {}),
      });
      const after = parseNotebook("nb.ipynb", r.text);
      // Untouched cells: the same bytes, in the same order.
      const oldCells = before.spans.map((s) => text.slice(s.start, s.end));
      const newCells = after.spans.map((s) => r.text.slice(s.start, s.end));
      const expected = [...oldCells];
      if (mode === "delete") expected.splice(r.index, 1);
      else if (mode === "insert") expected.splice(r.index, 0, newCells[r.index]);
      else expected[r.index] = newCells[r.index];
      assert.deepEqual(newCells, expected, `${file} ${mode} ${cellId}`);
      // Everything outside the cells array is unchanged.
      assert.equal(r.text.slice(0, after.array.start), text.slice(0, before.array.start));
      assert.equal(r.text.slice(after.array.end), text.slice(before.array.end));
      if (mode !== "delete") {
        const cell = after.json.cells[r.index];
        assert.equal(Array.isArray(cell.source) ? cell.source.join("") : cell.source, source);
        assert.equal(cell.cell_type, cellType ?? (mode === "insert" ? "code" : before.json.cells[r.index].cell_type));
      }
      const out = path.join(outDir, `r${n++}.ipynb`);
      fs.writeFileSync(out, r.text);
      produced.push(out);
    }
  }
  const verdicts = JSON.parse(py(CHECK_NOTEBOOKS, produced)) as Record<
    string,
    { valid: true | string; canonical: boolean }
  >;
  for (const p of produced) {
    assert.equal(verdicts[p].valid, true, `${p}: ${verdicts[p].valid}`);
    assert.equal(verdicts[p].canonical, true, `${p}: not in nbformat's layout: ${JSON.stringify(verdicts[p])}`);
  }
  assert.ok(produced.length >= 300);
});

test("a notebook in another layout (2-space indent, keys unsorted, CRLF) keeps it: only the edited cell's bytes change", () => {
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "python3", display_name: "Python 3" } },
    cells: [
      { id: "c1", cell_type: "markdown", source: "Intro", metadata: {} },
      {
        id: "c2",
        cell_type: "code",
        source: ["a = 1\n", "b = 2"],
        metadata: { tags: ["x"] },
        outputs: [],
        execution_count: null,
      },
      { id: "c3", cell_type: "code", source: "last", metadata: {}, outputs: [], execution_count: 4 },
    ],
  };
  const text = JSON.stringify(nb, null, 2).replace(/\n/g, "\r\n") + "\r\n";
  const r = editNotebook("n.ipynb", text, { mode: "replace", cellId: "c2", newSource: "a = 10\nb = 20" });
  const before = parseNotebook("n.ipynb", text);
  const after = parseNotebook("n.ipynb", r.text);
  assert.equal(r.text.slice(0, after.spans[1].start), text.slice(0, before.spans[1].start));
  assert.equal(r.text.slice(after.spans[1].end), text.slice(before.spans[1].end));
  const cell = r.text.slice(after.spans[1].start, after.spans[1].end);
  // Its own key order (id first, as the file has it), the file's indent and line breaks, source as lines.
  assert.equal(
    cell,
    [
      "{",
      '      "id": "c2",',
      '      "cell_type": "code",',
      '      "source": [',
      '        "a = 10\\n",',
      '        "b = 20"',
      "      ],",
      '      "metadata": {',
      '        "tags": [',
      '          "x"',
      "        ]",
      "      },",
      '      "outputs": [],',
      '      "execution_count": null',
      "    }",
    ].join("\r\n"),
  );
  const ins = editNotebook("n.ipynb", text, { mode: "insert", cellId: "c3", newSource: "new", cellType: "markdown" });
  assert.ok(ins.text.startsWith(text.slice(0, before.spans[2].end)));
  assert.match(
    ins.text.slice(before.spans[2].end),
    /^,\r\n    \{\r\n      "cell_type": "markdown",\r\n      "id": "[0-9a-f]{8}",/,
  );
  assert.equal(JSON.parse(ins.text).cells.length, 4);
  const del = editNotebook("n.ipynb", text, { mode: "delete", cellId: "c3" });
  assert.deepEqual(
    JSON.parse(del.text).cells.map((c: { id: string }) => c.id),
    ["c1", "c2"],
  );
  assert.equal(del.text, text.slice(0, before.spans[1].end) + text.slice(before.spans[2].end));
});

test("edits at the edges: the only cell deleted, a cell inserted into an empty notebook and first; cells without ids (nbformat 4.4) addressed as cell-N", () => {
  const one = py(String.raw`
import nbformat, sys
from nbformat.v4 import new_notebook, new_code_cell
nb = new_notebook(); nb.nbformat_minor = 4
nb.cells = [new_code_cell("only")]
for c in nb.cells: c.pop("id", None)
sys.stdout.write(nbformat.writes(nb, version=4) + "\n")`);
  const parsed = parseNotebook("o.ipynb", one);
  assert.equal(parsed.json.nbformat_minor, 4);
  const del = editNotebook("o.ipynb", one, { mode: "delete", cellId: "cell-1" });
  assert.deepEqual(JSON.parse(del.text).cells, []);
  assert.match(del.text, /"cells": \[\],\n/);
  const ins = editNotebook("o.ipynb", del.text, { mode: "insert", newSource: "first" });
  const cells = JSON.parse(ins.text).cells;
  assert.equal(cells.length, 1);
  assert.equal(cells[0].id, undefined, "no id in a 4.4 notebook (its schema has none)");
  const first = editNotebook("o.ipynb", one, { mode: "insert", newSource: "zero", cellType: "markdown" });
  assert.deepEqual(
    JSON.parse(first.text).cells.map((c: { source: string[] }) => c.source.join("")),
    ["zero", "only"],
  );
  const verdicts = JSON.parse(
    py(
      CHECK_NOTEBOOKS,
      [del, ins, first].map((r, i) => {
        const p = path.join(tempTree(), `e${i}.ipynb`);
        fs.writeFileSync(p, r.text);
        return p;
      }),
    ),
  );
  for (const v of Object.values(verdicts) as Array<{ valid: true | string; canonical: boolean }>)
    assert.deepEqual(v, { valid: true, canonical: true });
});

test("the schema check finds what nbformat's schema forbids", async () => {
  const good = JSON.parse(fs.readFileSync(makeNotebooks(1)[0], "utf8"));
  assert.deepEqual(await notebookSchemaErrors(good), []);
  const bad = structuredClone(good);
  bad.cells.push({ id: "zz", cell_type: "markdown", source: "x", metadata: {}, outputs: [] });
  const errors = await notebookSchemaErrors(bad);
  assert.ok(errors.length > 0, "a markdown cell with outputs is invalid");
  const noId = structuredClone(good);
  noId.cells.push({ cell_type: "raw", source: "x", metadata: {} });
  assert.ok((await notebookSchemaErrors(noId)).length > 0, "nbformat 4.5 cells need an id");
});

const NOTEBOOK = () => {
  const dir = tempTree({}, "rt-nbtool-");
  py(
    String.raw`
import nbformat, sys
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell, new_output
nb = new_notebook()
nb.cells = [new_markdown_cell("# Title\nSome *text* with é"),
  new_code_cell("x = 1\nprint(x)", execution_count=1, outputs=[new_output("stream", name="stdout", text="1\n")]),
  new_code_cell("1/0", execution_count=2, outputs=[new_output("error", ename="ZeroDivisionError", evalue="division by zero", traceback=["\x1b[0;31mZeroDivisionError\x1b[0m Traceback", "----> 1 1/0"])]),
  new_code_cell("print('x' * 9000)", execution_count=3, outputs=[new_output("stream", name="stdout", text="x" * 9000 + "\n")])]
for i, c in enumerate(nb.cells): c.id = "cell%d" % i
nbformat.write(nb, sys.argv[1])`,
    [path.join(dir, "a.ipynb")],
  );
  return dir;
};

test("read shows a notebook's cells in order: id, type, source, outputs (a traceback without its colour codes, a long output cut); offset and limit count cells", async () => {
  const dir = NOTEBOOK();
  const r = await rtCall("read", { path: "a.ipynb" }, { cwd: dir });
  assert.equal(r.result.success, true);
  const out = r.result.output as string;
  assert.match(
    out,
    /^a\.ipynb: notebook, 4 cells \(nbformat 4\.5\)\n<cell 1 id="cell0" type="markdown">\n# Title\nSome \*text\* with é\n<\/cell>\n<cell 2 id="cell1" type="code" \[1\]>\nx = 1\nprint\(x\)\n<output stdout>\n1\n<\/output>\n<\/cell>/,
  );
  assert.match(
    out,
    /<output error>\nZeroDivisionError: division by zero\nZeroDivisionError Traceback\n----> 1 1\/0\n<\/output>/,
  );
  assert.ok(!out.includes("\x1b"), "no ANSI codes");
  assert.match(out, /output cut: 5000 more characters/);
  assert.deepEqual(r.result.cell_ids, ["cell0", "cell1", "cell2", "cell3"]);
  const part = await rtCall("read", { path: "a.ipynb", offset: 2, limit: 1 }, { cwd: dir });
  assert.match(part.result.output, /<cell 2 id="cell1"/);
  assert.ok(!part.result.output.includes("<cell 3"));
  assert.match(part.result.output, /showing cells 2-2 of 4; use offset=3 to continue/);
  const past = await rtCall("read", { path: "a.ipynb", offset: 9 }, { cwd: dir });
  assert.equal(past.result.success, false);
  assert.match(past.result.error, /offset 9 is past the last cell .* numbered 1 to 4/);
  // ids: true still shows the JSON lines with line IDs (for edit_lines on the raw file).
  const raw = await rtCall("read", { path: "a.ipynb", ids: true, limit: 3 }, { cwd: dir });
  assert.match(raw.result.output, /^\s+1: \[LID:[a-z0-9]+\] \{/);
});

test("notebook_edit through the CLI faces: replace, insert, delete; undo_edit restores the bytes; bad arguments change nothing", async () => {
  const dir = NOTEBOOK();
  const file = path.join(dir, "a.ipynb");
  const original = fs.readFileSync(file);
  const r = await rtCall(
    "notebook_edit",
    { notebook_path: "a.ipynb", cell_id: "cell1", new_source: "x = 2\nprint(x)" },
    { cwd: dir },
  );
  assert.equal(r.result.success, true, JSON.stringify(r.result));
  assert.match(r.result.output, /^cell cell1 \(code\) replaced\n✓ Edited a\.ipynb:/);
  const nb = JSON.parse(fs.readFileSync(file, "utf8"));
  assert.deepEqual(nb.cells[1].source, ["x = 2\n", "print(x)"]);
  assert.deepEqual(
    [nb.cells[1].outputs, nb.cells[1].execution_count],
    [[], null],
    "outputs of the old code are cleared",
  );
  const ins = await rtCall(
    "NotebookEdit",
    { path: "a.ipynb", cell_id: "cell0", edit_mode: "insert", cell_type: "markdown", new_source: "## Added" },
    { cwd: dir },
  );
  assert.match(ins.result.output, /^cell [0-9a-f]{8} \(markdown\) inserted as cell 2/);
  const del = await rtCall("notebook_edit", { path: "a.ipynb", cell_id: "cell2", edit_mode: "delete" }, { cwd: dir });
  assert.equal(del.result.success, true);
  const verdict = JSON.parse(py(CHECK_NOTEBOOKS, [file]))[file];
  assert.deepEqual(verdict, { valid: true, canonical: true });
  // Three undos in one `rt call --batch` process.
  const undos = await rtBatch(
    Array.from({ length: 3 }, () => ({ tool: "undo_edit", args: { path: "a.ipynb" } })),
    { cwd: dir },
  );
  assert.deepEqual(
    undos.results.map((u) => u.success),
    [true, true, true],
    undos.stderr,
  );
  assert.ok(fs.readFileSync(file).equals(original), "three undos give back the original bytes");

  const before = fs.readFileSync(file);
  const cases: Array<[unknown, RegExp]> = [
    [
      { path: "a.ipynb", cell_id: "nope", new_source: "x" },
      /no cell with id "nope"; the cells are: cell0, cell1, cell2, cell3/,
    ],
    [{ path: "a.ipynb", new_source: "x" }, /edit_mode replace needs cell_id/],
    [{ path: "a.ipynb", cell_id: "cell1" }, /needs new_source/],
    [{ path: "a.ipynb", cell_id: "cell1", new_source: "x", edit_mode: "move" }, /edit_mode/],
    [{ path: "a.ipynb", cell_id: "cell1", new_source: "x", cell_type: "heading" }, /cell_type/],
  ];
  fs.writeFileSync(path.join(dir, "b.txt"), "text\n");
  fs.writeFileSync(path.join(dir, "broken.ipynb"), "{ not json");
  cases.push(
    [{ path: "b.txt", cell_id: "c", new_source: "x" }, /not a notebook \(\.ipynb\)/],
    [{ path: "broken.ipynb", cell_id: "c", new_source: "x" }, /not a notebook: the file is not valid JSON/],
  );
  // Every bad call in one `rt call --batch` process.
  const bad = await rtBatch(
    cases.map(([args]) => ({ tool: "notebook_edit", args })),
    { cwd: dir },
  );
  assert.equal(bad.results.length, cases.length, bad.stderr);
  for (const [i, [args, message]] of cases.entries()) {
    assert.equal(bad.results[i].success, false, JSON.stringify(args));
    assert.match(bad.results[i].error, message);
  }
  assert.ok(fs.readFileSync(file).equals(before));
});

test("safe-read-only: notebook_edit writes nothing (a dry run shows the diff)", async () => {
  const dir = NOTEBOOK();
  const file = path.join(dir, "a.ipynb");
  const before = fs.readFileSync(file);
  const r = await rt(
    [
      "--profile",
      "safe-read-only",
      "call",
      "notebook_edit",
      "--args",
      JSON.stringify({ path: "a.ipynb", cell_id: "cell0", new_source: "changed" }),
    ],
    { cwd: dir },
  );
  const res = JSON.parse(r.stdout);
  assert.equal(res.success, false);
  assert.match(res.error, /safe-read-only/);
  const dry = await rt(
    [
      "--profile",
      "safe-read-only",
      "call",
      "notebook_edit",
      "--args",
      JSON.stringify({ path: "a.ipynb", cell_id: "cell0", new_source: "changed", dry_run: true }),
    ],
    { cwd: dir },
  );
  assert.match(JSON.parse(dry.stdout).output, /Dry run: a\.ipynb not modified/);
  assert.ok(fs.readFileSync(file).equals(before));
});

test("renderNotebook lists image outputs (for vision models) without printing their data", () => {
  const file = makeNotebooks(12).find((f) => fs.readFileSync(f, "utf8").includes("image/png"))!;
  const nb = parseNotebook("x.ipynb", fs.readFileSync(file, "utf8"));
  const shown = renderNotebook(nb, { offset: 1, limit: 100, outputMaxChars: 4000 });
  assert.ok(shown.images.length > 0);
  assert.match(shown.text, /<output image\/png: \d+ bytes>/);
  for (const img of shown.images) assert.ok(!shown.text.includes(img.base64));
});

test("a notebook written with ensure_ascii (non-ASCII as \\u escapes) gets its new cell escaped the same way", () => {
  const file = makeNotebooks(1)[0];
  const ascii = py(
    String.raw`
import json, sys
nb = json.load(open(sys.argv[1], encoding="utf-8"))
nb["cells"].append({"cell_type": "markdown", "id": "asc1", "metadata": {}, "source": ["caf\u00e9"]})
sys.stdout.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=True) + "\n")`,
    [file],
  );
  assert.match(ascii, /caf\\u00e9/);
  const r = editNotebook("a.ipynb", ascii, { mode: "replace", cellId: "asc1", newSource: "naïve 日本 🙂" });
  assert.ok(!/[^\x00-\x7f]/.test(r.text), "still ASCII only");
  const canonical = py(
    String.raw`
import json, sys
sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), indent=1, sort_keys=True, ensure_ascii=True) + "\n")`.replace(
      "sys.stdin.read()",
      "open(sys.argv[1], encoding='utf-8').read()",
    ),
    [
      (() => {
        const p = path.join(tempTree(), "r.ipynb");
        fs.writeFileSync(p, r.text);
        return p;
      })(),
    ],
  );
  assert.equal(r.text, canonical);
});
