// Decompression bombs against the parsers, each refused within its budget with an error naming
// the limit, with the process's peak memory (measured by the kernel: /usr/bin/time's maximum
// resident set size, /proc's VmHWM for rt mcp) under 1 GB: PDFs whose streams inflate to
// gigabytes, a notebook of 32 million `{}`, PNGs of 16383 x 16383 pixels read at once through
// rt mcp, and a notebook holding ten of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, tempTree, seededRandom } from "../helpers.ts";
import { rtEnv, call } from "../mcp/helpers.ts";
import { execFileSync } from "node:child_process";
import { blackPng, bombPdf, lzwEncode } from "./bombs.ts";
import { checkPdfBudget } from "../../src/parsers/pdf.ts";
import {
  IMAGE_MAX_PIXELS,
  NOTEBOOK_MAX_JSON_CONTAINERS,
  PDF_MAX_INFLATED_BYTES,
  PDF_STREAM_MAX_INFLATED_BYTES,
} from "../../src/base/limits.ts";

const MB = 1024 * 1024;
const GB_KB = 1024 * 1024;

/** `rt ARGS` under /usr/bin/time: exit code, output, peak RSS in KB, seconds. */
function measured(cwd: string, args: string[]): { code: number; out: string; rssKb: number; seconds: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "RSS %M KB %e s", process.execPath, CLI, ...args], {
    cwd,
    env: rtEnv(),
    encoding: "utf8",
    maxBuffer: 64 * MB,
  });
  const m = /RSS (\d+) KB ([\d.]+) s\s*$/.exec(r.stderr);
  assert.ok(m, `no measurement in: ${r.stderr.slice(-500)}`);
  return { code: r.status ?? -1, out: r.stdout + r.stderr, rssKb: Number(m[1]), seconds: Number(m[2]) };
}

test("PDF bombs: 20 pages of 64 MB (1.3 MB of file), 20 pages of 512 MB, a 16383x16383 image: refused within budget", () => {
  const r = seededRandom(28_4);
  const root = tempTree({});
  // About 1.3 MB of file: every stream within the one-stream budget, the whole over the file's.
  const manyPages = Array.from({ length: 20 }, () => PDF_STREAM_MAX_INFLATED_BYTES - r.int(MB));
  fs.writeFileSync(path.join(root, "many.pdf"), bombPdf(manyPages));
  fs.writeFileSync(path.join(root, "huge.pdf"), bombPdf(Array.from({ length: 20 }, () => 512 * MB)));
  const image = {
    dict: `<< /Type /XObject /Subtype /Image /Width 16383 /Height 16383 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length 4 >>`,
    data: Buffer.from("abcd"),
  };
  fs.writeFileSync(path.join(root, "image.pdf"), bombPdf([1000], [image]));
  assert.ok(fs.statSync(path.join(root, "many.pdf")).size < 2 * MB);
  const cases: Array<[string, RegExp]> = [
    ["many.pdf", new RegExp(`streams inflate to more than ${PDF_MAX_INFLATED_BYTES / MB} MB, rt's budget for one PDF`)],
    [
      "huge.pdf",
      new RegExp(`inflates to more than ${PDF_STREAM_MAX_INFLATED_BYTES / MB} MB, rt's budget for one PDF stream`),
    ],
    ["image.pdf", /16383x16383-pixel image, over rt's budget of [\d,]+ pixels/],
  ];
  for (const [file, why] of cases) {
    const m = measured(root, ["read", file]);
    assert.equal(m.code, 1, m.out);
    assert.match(m.out, why);
    assert.ok(m.rssKb < GB_KB, `${file}: ${m.rssKb} KB`);
    assert.ok(m.seconds < 30, `${file}: ${m.seconds} s`);
  }
});

test("LZW and encrypted PDF bombs: counted at what they decode to, refused within budget; their small twins read", () => {
  const root = tempTree({});
  // LZW grows 12 bits into 3,838 bytes: 20 pages of 60 MB are about 0.6 MB of file.
  fs.writeFileSync(
    path.join(root, "lzw-many.pdf"),
    bombPdf(
      Array.from({ length: 20 }, () => 60 * MB),
      [],
      "LZWDecode",
    ),
  );
  fs.writeFileSync(path.join(root, "lzw-huge.pdf"), bombPdf([1000, 2048 * MB], [], "LZWDecode"));
  assert.ok(fs.statSync(path.join(root, "lzw-many.pdf")).size < MB);
  // Encrypted with an empty user password (pdf.js opens it unasked) by qpdf, which keeps the Flate data as it is.
  const plain = path.join(root, "plain.pdf");
  fs.writeFileSync(plain, bombPdf(Array.from({ length: 20 }, () => 60 * MB)));
  execFileSync("qpdf", ["--encrypt", "", "owner", "256", "--", plain, path.join(root, "locked-bomb.pdf")]);
  execFileSync("qpdf", [
    "--allow-weak-crypto",
    "--encrypt",
    "",
    "owner",
    "128",
    "--",
    plain,
    path.join(root, "locked-bomb-128.pdf"),
  ]);
  fs.rmSync(plain);
  const cases: Array<[string, RegExp]> = [
    [
      "lzw-many.pdf",
      new RegExp(`streams inflate to more than ${PDF_MAX_INFLATED_BYTES / MB} MB, rt's budget for one PDF`),
    ],
    [
      "lzw-huge.pdf",
      new RegExp(`inflates to more than ${PDF_STREAM_MAX_INFLATED_BYTES / MB} MB, rt's budget for one PDF stream`),
    ],
    ["locked-bomb.pdf", /could decode to more than \d+ MB, rt's budget for one PDF.*decrypt it first/],
    ["locked-bomb-128.pdf", /could decode to more than \d+ MB, rt's budget for one PDF.*decrypt it first/],
  ];
  for (const [file, why] of cases) {
    const m = measured(root, ["read", file]);
    assert.equal(m.code, 1, m.out);
    assert.match(m.out, why);
    assert.ok(m.rssKb < GB_KB, `${file}: ${m.rssKb} KB`);
    assert.ok(m.seconds < 30, `${file}: ${m.seconds} s`);
  }
  // The twins: a page of text in an LZW stream, and a small PDF encrypted the same way, read as pdftotext reads them.
  const line = "Hello LZW world, page one";
  const content = lzwEncode(Buffer.from(`BT /F1 24 Tf 72 700 Td (${line}) Tj ET\n`.repeat(20)));
  const font = { dict: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>" };
  const lzwPdf = path.join(root, "lzw-text.pdf");
  // The font is object 5 (catalog, pages, the page, its content, then the extra objects).
  fs.writeFileSync(
    lzwPdf,
    bombPdf([0], [font], "LZWDecode", { data: () => content, dict: "/Resources << /Font << /F1 5 0 R >> >> " }),
  );
  execFileSync("qpdf", ["--encrypt", "", "owner", "256", "--", lzwPdf, path.join(root, "locked-text.pdf")]);
  assert.match(fs.readFileSync(lzwPdf, "latin1"), /\/Filter \/LZWDecode/);
  for (const file of ["lzw-text.pdf", "locked-text.pdf"]) {
    const oracle = execFileSync("pdftotext", [path.join(root, file), "-"], { encoding: "utf8" });
    assert.match(oracle, new RegExp(line));
    const m = measured(root, ["read", file]);
    assert.equal(m.code, 0, m.out);
    assert.match(m.out, new RegExp(line));
  }
});

test("a PDF within the budgets passes the check (the check inflates, counts and keeps nothing)", async () => {
  await checkPdfBudget("ok.pdf", bombPdf([10 * MB, 1000, 5 * MB]));
});

test("a 96 MB notebook of 32 million {} is refused before JSON.parse builds it", () => {
  const root = tempTree({});
  const fd = fs.openSync(path.join(root, "bomb.ipynb"), "w");
  fs.writeSync(fd, '{"cells": [], "metadata": {"x": [');
  const piece = "{},".repeat(1_000_000);
  for (let i = 0; i < 32; i++) fs.writeSync(fd, piece);
  fs.writeSync(fd, '{}]}, "nbformat": 4, "nbformat_minor": 5}\n');
  fs.closeSync(fd);
  const m = measured(root, ["read", "bomb.ipynb"]);
  assert.equal(m.code, 1, m.out);
  assert.match(
    m.out,
    new RegExp(`more than ${NOTEBOOK_MAX_JSON_CONTAINERS.toLocaleString("en-US")} JSON objects and arrays`),
  );
  assert.ok(m.rssKb < GB_KB, `${m.rssKb} KB`);
  fs.writeFileSync(
    path.join(root, "deep.ipynb"),
    `{"cells": [], "metadata": {"x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}, "nbformat": 4, "nbformat_minor": 5}`,
  );
  const deep = measured(root, ["read", "deep.ipynb"]);
  assert.equal(deep.code, 1, deep.out);
  assert.match(deep.out, /nested more than \d+ levels deep/);
});

/** VmHWM (peak resident memory) of a process, in KB. */
function peakKb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0);
}

test("rt mcp: six 16383x16383 PNGs and six large ones read at once, then a notebook of ten such images: under 1 GB", async () => {
  const bomb = blackPng(16383, 16383);
  const large = blackPng(4000, 3000);
  const files: Record<string, Buffer | string> = {};
  for (let i = 0; i < 6; i++) {
    files[`bomb${i}.png`] = bomb;
    files[`large${i}.png`] = large;
  }
  const output = {
    output_type: "display_data",
    data: { "image/png": bomb.toString("base64"), "text/plain": ["<Figure>"] },
    metadata: {},
  };
  const cell = {
    cell_type: "code",
    execution_count: 1,
    id: "c1",
    metadata: {},
    source: ["plot()"],
    outputs: Array.from({ length: 10 }, () => output),
  };
  files["plots.ipynb"] = JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 });
  const root = tempTree(files);
  assert.ok(fs.statSync(path.join(root, "plots.ipynb")).size > 10_000_000);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "--root", root, "mcp"],
    env: rtEnv(),
    cwd: root,
    stderr: "pipe",
  });
  const client = new Client({ name: "rt-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const pid = transport.pid!;
    const reads = await Promise.all(
      Object.keys(files)
        .filter((f) => f.endsWith(".png"))
        .map((f) => call(client, "read", { path: f }).then((r) => ({ f, ...r }))),
    );
    for (const r of reads) {
      if (r.f.startsWith("bomb")) {
        assert.equal(r.isError, true, r.text);
        assert.match(
          r.text,
          new RegExp(`16383x16383 pixels .* over rt's budget of ${IMAGE_MAX_PIXELS / 1e6} million pixels`),
        );
      } else {
        assert.equal(r.isError, false, r.text);
        const image = r.result.content.find((c) => c.type === "image");
        assert.ok(image, `${r.f}: an image was sent: ${JSON.stringify(r.result.content).slice(0, 300)}`);
      }
    }
    const nb = await call(client, "read", { path: "plots.ipynb" });
    assert.equal(nb.isError, false, nb.text);
    assert.match(nb.text, /not shown: cell 1 \(image\/png output\): 16383x16383 pixels/);
    const peak = peakKb(pid);
    assert.ok(peak < GB_KB, `rt mcp peaked at ${peak} KB`);
  } finally {
    await client.close();
  }
});
