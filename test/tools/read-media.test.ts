// read of images and PDFs (issue 16). Images are real files made by sharp and,
// as an independent producer, by poppler's pdftoppm; PDFs are made by
// Ghostscript from PostScript, encrypted by qpdf, and poppler's pdftotext is the
// oracle of the text read returns. Every face: the CLI and `rt call` describe
// an image (type, bytes, pixels); a face that passes images (the agent, MCP)
// gets it fitted to the limits it gave; a model without vision gets a note.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import type { ImageInput, ToolResult } from "../../src/tools/types.ts";
import { PDF_MAX_PAGES_PER_READ } from "../../src/base/limits.ts";
import { parsePageRange } from "../../src/parsers/pdf.ts";
import { readPdf } from "../../src/tools/shared/readMedia.ts";
import { rt, rtCall, tempTree, treeHash } from "../helpers.ts";

const VISION: ImageInput = {
  vision: true,
  limits: { maxEdge: 1568, maxBytes: 3_932_160, formats: ["image/png", "image/jpeg", "image/gif", "image/webp"] },
};
const PNG_JPEG_ONLY: ImageInput = {
  vision: true,
  limits: { maxEdge: 1568, maxBytes: 4 * 1024 * 1024, formats: ["image/png", "image/jpeg"] },
};

function ws(files: Record<string, string | Buffer>) {
  const root = tempTree(files);
  const w = createWorkspace({ root, env: {} });
  return {
    root,
    call: (args: Record<string, unknown>, imageInput?: ImageInput): Promise<ToolResult> =>
      callTool(w, "read", args, imageInput ? { imageInput: () => Promise.resolve(imageInput) } : {}),
  };
}

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } });

/** Random pixels: an image no codec compresses much (for the byte limit). */
const noise = (width: number, height: number) =>
  sharp(crypto.randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });

/** A PDF made by Ghostscript: each page a list of lines (`size`: the font size, and the line spacing). */
function ghostscriptPdf(dir: string, name: string, pages: string[][], size = 20): string {
  const ps = [`/Helvetica findfont ${size} scalefont setfont`];
  for (const lines of pages) {
    lines.forEach((l, i) => ps.push(`10 ${780 - i * size * 1.2} moveto (${l}) show`));
    ps.push("showpage");
  }
  const psFile = path.join(dir, `${name}.ps`);
  fs.writeFileSync(psFile, ps.join("\n"));
  const out = path.join(dir, name);
  execFileSync("gs", ["-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", `-sOutputFile=${out}`, psFile]);
  fs.rmSync(psFile);
  return out;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

test("the CLI face (no images): type, bytes and pixels of PNG, JPEG, GIF and WebP; metadata says the same", async () => {
  const files = {
    "a.png": await solid(640, 480).png().toBuffer(),
    "b.jpg": await solid(300, 200).jpeg().toBuffer(),
    "c.gif": await solid(32, 16).gif().toBuffer(),
    "d.webp": await solid(100, 50).webp().toBuffer(),
  };
  const { call } = ws(files);
  const expect = [
    ["a.png", "PNG", "image/png", 640, 480],
    ["b.jpg", "JPEG", "image/jpeg", 300, 200],
    ["c.gif", "GIF", "image/gif", 32, 16],
    ["d.webp", "WebP", "image/webp", 100, 50],
  ] as const;
  for (const [name, word, type, w, h] of expect) {
    const r = await call({ path: name });
    const size = files[name].length;
    assert.equal(r.success, true, String(r.error));
    assert.equal(r.output, `${name}: ${word} image, ${size.toLocaleString("en-US")} bytes, ${w}x${h} pixels`);
    assert.deepEqual([r.media_type, r.bytes, r.width, r.height], [type, size, w, h]);
    assert.equal(r.images, undefined, "no image data where nobody shows images");
  }
});

test("an image from another producer (poppler's pdftoppm) reads with the size it was made at", async () => {
  const root = tempTree({});
  const pdf = ghostscriptPdf(root, "one.pdf", [["A page to rasterize"]]);
  execFileSync("pdftoppm", [
    "-png",
    "-scale-to-x",
    "400",
    "-scale-to-y",
    "300",
    "-singlefile",
    pdf,
    path.join(root, "page"),
  ]);
  const w = createWorkspace({ root, env: {} });
  const r = await callTool(w, "read", { path: "page.png" });
  assert.equal(r.success, true, String(r.error));
  assert.equal(r.width, 400);
  assert.equal(r.height, 300);
  assert.equal(r.bytes, fs.statSync(path.join(root, "page.png")).size);
});

test("rt read and rt call print the description, no base64", async () => {
  const png = await solid(64, 48).png().toBuffer();
  const root = tempTree({ "pic.png": png });
  const cli = await rt(["read", "pic.png"], { cwd: root });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout.trim(), `pic.png: PNG image, ${png.length} bytes, 64x48 pixels`);
  const call = await rtCall("read", { path: "pic.png" }, { cwd: root });
  assert.equal(call.result.success, true);
  assert.equal(call.result.width, 64);
  assert.equal(call.result.images, undefined);
  assert.ok(!JSON.stringify(call.result).includes(png.toString("base64").slice(0, 40)));
});

test("a face that passes images: a small image goes as its own bytes", async () => {
  const png = await solid(200, 100).png().toBuffer();
  const { call } = ws({ "s.png": png });
  const r = await call({ path: "s.png" }, VISION);
  assert.equal(r.success, true, String(r.error));
  const images = r.images as Array<{ media_type: string; data_base64: string; width: number; height: number }>;
  assert.equal(images.length, 1);
  assert.deepEqual(
    { ...images[0], data_base64: undefined },
    { media_type: "image/png", data_base64: undefined, width: 200, height: 100 },
  );
  assert.ok(Buffer.from(images[0].data_base64, "base64").equals(png), "unchanged bytes");
  assert.doesNotMatch(r.output, /scaled/);
});

test("an image over the long edge is scaled down (aspect kept) and says so", async () => {
  const { call } = ws({ "wide.png": await solid(3000, 1000).png().toBuffer() });
  const r = await call({ path: "wide.png" }, VISION);
  const img = (r.images as Array<{ data_base64: string; width: number; height: number; media_type: string }>)[0];
  assert.equal(img.width, 1568);
  assert.equal(img.height, 523);
  const meta = await sharp(Buffer.from(img.data_base64, "base64")).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1568, 523]);
  assert.match(
    r.output,
    /^wide\.png: PNG image, [\d,]+ bytes, 3000x1000 pixels\n\(shown to you scaled to 1568x523 pixels, PNG/,
  );
  assert.equal(r.width, 3000, "the metadata describes the file");
});

test("over the byte limit: JPEG, then fewer pixels, until it fits", async () => {
  const file = await noise(1200, 1200).png().toBuffer();
  assert.ok(file.length > 1_000_000);
  const { call } = ws({ "noise.png": file });
  const limits: ImageInput = {
    vision: true,
    limits: { maxEdge: 1568, maxBytes: 150_000, formats: ["image/png", "image/jpeg"] },
  };
  const r = await call({ path: "noise.png" }, limits);
  const img = (r.images as Array<{ data_base64: string; media_type: string; width: number }>)[0];
  const bytes = Buffer.from(img.data_base64, "base64");
  assert.ok(bytes.length <= 150_000, `${bytes.length} bytes`);
  assert.equal(img.media_type, "image/jpeg");
  assert.equal((await sharp(bytes).metadata()).format, "jpeg");
});

test("formats the provider does not take are converted: WebP becomes PNG for Ollama; an animated GIF sends its first frame", async () => {
  const still = await sharp(Buffer.alloc(20 * 20 * 4, 128), { raw: { width: 20, height: 20, channels: 4 } })
    .gif()
    .toBuffer();
  // Two 10x10 frames stacked in one raw image, written as an animation.
  const twoFrames = await sharp(Buffer.concat([Buffer.alloc(10 * 10 * 4, 255), Buffer.alloc(10 * 10 * 4, 30)]), {
    raw: { width: 10, height: 20, channels: 4, pageHeight: 10 },
  })
    .gif()
    .toBuffer();
  const { call } = ws({ "w.webp": await solid(50, 40).webp().toBuffer(), "still.gif": still, "two.gif": twoFrames });
  const webp = await call({ path: "w.webp" }, PNG_JPEG_ONLY);
  const img = (webp.images as Array<{ data_base64: string; media_type: string }>)[0];
  assert.equal(img.media_type, "image/png");
  assert.equal((await sharp(Buffer.from(img.data_base64, "base64")).metadata()).format, "png");
  const gif = await call({ path: "still.gif" }, VISION);
  const sentGif = (gif.images as Array<{ media_type: string; data_base64: string }>)[0];
  assert.equal(sentGif.media_type, "image/gif", "a still GIF goes as it is to a provider that takes GIF");
  assert.ok(Buffer.from(sentGif.data_base64, "base64").equals(still));
  const described = await call({ path: "two.gif" });
  assert.equal(described.frames, 2, String(described.output));
  assert.match(described.output, /10x10 pixels, 2 frames \(animated: the first frame is what a model sees\)$/);
  const sent = await call({ path: "two.gif" }, VISION);
  const first = (sent.images as Array<{ data_base64: string; media_type: string; width: number; height: number }>)[0];
  assert.equal(first.media_type, "image/png");
  assert.deepEqual([first.width, first.height], [10, 10]);
  const { channels } = await sharp(Buffer.from(first.data_base64, "base64")).stats();
  assert.equal(channels[0].min, 255, "the first (white) frame");
});

test("a model without vision gets a note, not the image", async () => {
  const { call } = ws({ "p.png": await solid(10, 10).png().toBuffer() });
  const r = await call({ path: "p.png" }, { vision: false, reason: "the model ollama/tiny does not take images" });
  assert.equal(r.success, true);
  assert.equal(r.images, undefined);
  assert.match(r.output, /\n\(The image itself is not shown: the model ollama\/tiny does not take images\.\)$/);
});

test("corrupt images: a clear error, whatever the face, and nothing changes", async () => {
  const good = await solid(300, 300).png().toBuffer();
  const { root, call } = ws({
    "cut.png": good.subarray(0, Math.floor(good.length / 2)),
    "junk.webp": Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE"), Buffer.alloc(64, 1)]),
    "bad.jpg": Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)]),
  });
  const before = treeHash(root, []);
  for (const input of [undefined, VISION]) {
    const cut = await call({ path: "cut.png" }, input);
    assert.equal(cut.success, false);
    assert.match(
      String(cut.error),
      /^cut\.png: not a readable PNG image \(.+\); the file may be corrupt or truncated$/,
    );
    const junk = await call({ path: "junk.webp" }, input);
    assert.equal(junk.success, false);
    assert.equal(junk.error, "junk.webp: not a PNG, JPEG, GIF or WebP image");
    const jpg = await call({ path: "bad.jpg" }, input);
    assert.equal(jpg.success, false);
    assert.match(String(jpg.error), /^bad\.jpg: not a readable JPEG image/);
  }
  assert.equal(treeHash(root, []), before);
});

test("line arguments on an image, PDF arguments on a text file: refused, saying what applies", async () => {
  const { call } = ws({ "p.png": await solid(10, 10).png().toBuffer(), "t.txt": "text\n" });
  const r = await call({ path: "p.png", offset: 2, ids: true });
  assert.equal(r.error, "p.png is an image: offset, ids apply only to text files");
  const p = await call({ path: "p.png", pages: "1" });
  assert.equal(p.error, "p.png is an image: pages and as_images apply to PDFs");
  const t = await call({ path: "t.txt", pages: "1" });
  assert.equal(t.error, "pages and as_images apply to PDFs; t.txt is not one (offset and limit choose lines)");
});

test("PDF text: the pages asked for, the page count, and the same words as pdftotext", async () => {
  const root = tempTree({});
  const pages = [
    ["Alpha page says hello", "second line of alpha"],
    ["Bravo: the answer is 42"],
    ["Charlie closes (the) file"],
  ];
  const pdf = ghostscriptPdf(
    root,
    "doc.pdf",
    pages.map((lines) => lines.map((l) => l.replace(/[()]/g, (c) => `\\${c}`))),
  );
  const w = createWorkspace({ root, env: {} });
  const all = await callTool(w, "read", { path: "doc.pdf" });
  assert.equal(all.success, true, String(all.error));
  assert.match(all.output, /^doc\.pdf: PDF, 3 pages; pages 1-3\n--- page 1 ---\n/);
  assert.equal(all.total_pages, 3);
  assert.deepEqual(all.pages, [1, 2, 3]);
  const some = await callTool(w, "read", { path: "doc.pdf", pages: "2-3" });
  assert.deepEqual(some.pages, [2, 3]);
  assert.doesNotMatch(some.output, /Alpha/);
  for (const n of [1, 2, 3]) {
    const ours = (await callTool(w, "read", { path: "doc.pdf", pages: String(n) })).output
      .split("\n")
      .slice(2)
      .join("\n");
    const theirs = execFileSync("pdftotext", ["-f", String(n), "-l", String(n), pdf, "-"], { encoding: "utf8" });
    assert.deepEqual(words(ours), words(theirs), `page ${n}`);
  }
  const cli = await rt(["read", "doc.pdf", "--pages", "2"], { cwd: root });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout.trim(), "doc.pdf: PDF, 3 pages; pages 2\n--- page 2 ---\nBravo: the answer is 42");
});

test(`PDF pages: at most ${PDF_MAX_PAGES_PER_READ} a call; the default says where the rest is; bad ranges are clear errors`, async () => {
  const root = tempTree({});
  ghostscriptPdf(
    root,
    "long.pdf",
    Array.from({ length: 25 }, (_, i) => [`This is page number ${i + 1}`]),
  );
  const w = createWorkspace({ root, env: {} });
  const first = await callTool(w, "read", { path: "long.pdf" });
  assert.match(
    first.output,
    /^long\.pdf: PDF, 25 pages; pages 1-20; pages 21-25 not shown: ask for them with pages: "21-25" \(at most 20 a call\)\n/,
  );
  assert.equal(first.truncated, true);
  assert.match(first.output, /--- page 20 ---\nThis is page number 20$/);
  const rest = await callTool(w, "read", { path: "long.pdf", pages: "21-25" });
  assert.match(rest.output, /--- page 25 ---\nThis is page number 25$/);
  const mixed = await callTool(w, "read", { path: "long.pdf", pages: "2,4-5" });
  assert.deepEqual(mixed.pages, [2, 4, 5]);
  const cases: Array<[string, RegExp]> = [
    ["1-21", /^pages "1-21": at most 20 pages per call; read "1-20" first$/],
    ["30", /^pages "30": the file has 25 pages; use pages from 1 to 25$/],
    ["0-2", /^pages "0-2": a range runs from a first page \(1 or more\)/],
    ["5-3", /^pages "5-3": a range runs/],
    ["abc", /^pages "abc" is not a page range; write "3", "1-5" or "1-3,8"/],
    ["1-10,11-15,16-21", /^pages "1-10,11-15,16-21" names 21 pages; at most 20 per call$/],
  ];
  for (const [pages, error] of cases) {
    const r = await callTool(w, "read", { path: "long.pdf", pages });
    assert.equal(r.success, false, pages);
    assert.match(String(r.error), error);
  }
  assert.deepEqual(parsePageRange(" 3 - 4 , 1", 5, 20), [1, 3, 4]);
});

test("encrypted, truncated and fake PDFs: clear errors, nothing changes", async () => {
  const root = tempTree({});
  const pdf = ghostscriptPdf(root, "ok.pdf", [["Secret text"]]);
  execFileSync("qpdf", ["--encrypt", "pw", "pw", "256", "--", pdf, path.join(root, "locked.pdf")]);
  const bytes = fs.readFileSync(pdf);
  fs.writeFileSync(path.join(root, "cut.pdf"), bytes.subarray(0, 60));
  fs.writeFileSync(path.join(root, "fake.pdf"), "%PDF-1.7\nthis is not a PDF body at all\n".repeat(3));
  const w = createWorkspace({ root, env: {} });
  const before = treeHash(root, []);
  const locked = await callTool(w, "read", { path: "locked.pdf" });
  assert.equal(locked.success, false);
  assert.match(String(locked.error), /^locked\.pdf: the PDF is encrypted with a password; rt cannot read it/);
  for (const name of ["cut.pdf", "fake.pdf"]) {
    const r = await callTool(w, "read", { path: name });
    assert.equal(r.success, false, name);
    assert.match(
      String(r.error),
      new RegExp(`^${name.replace(".", "\\.")}: not a valid PDF \\(.+\\); the file may be corrupt or truncated$`),
    );
  }
  assert.equal(treeHash(root, []), before);
});

test("as_images: rendered pages for a vision model; refused where no image can go", async () => {
  const root = tempTree({});
  ghostscriptPdf(root, "two.pdf", [["Rendered page one"], ["Rendered page two"]]);
  const w = createWorkspace({ root, env: {} });
  const noFace = await callTool(w, "read", { path: "two.pdf", as_images: true });
  assert.equal(noFace.success, false);
  assert.match(String(noFace.error), /^as_images: this face shows no images/);
  const blind = await callTool(
    w,
    "read",
    { path: "two.pdf", as_images: true },
    { imageInput: () => Promise.resolve({ vision: false, reason: "the model x/y does not take images" }) },
  );
  assert.equal(
    blind.error,
    "as_images: the model x/y does not take images; read two.pdf without as_images for its text",
  );
  const r = await callTool(
    w,
    "read",
    { path: "two.pdf", as_images: true, pages: "2" },
    { imageInput: () => Promise.resolve(VISION) },
  );
  assert.equal(r.success, true, String(r.error));
  assert.equal(r.output, "two.pdf: PDF, 2 pages; pages 2, as 1 image (one a page, in order)");
  const images = r.images as Array<{ data_base64: string; media_type: string; width: number; height: number }>;
  assert.equal(images.length, 1);
  assert.equal(images[0].media_type, "image/png");
  assert.equal(Math.max(images[0].width, images[0].height), 1568);
  // A white page with black text: both are there.
  const { channels } = await sharp(Buffer.from(images[0].data_base64, "base64")).stats();
  assert.equal(channels[0].max, 255);
  assert.ok(channels[0].min < 80, `darkest pixel ${channels[0].min}`);
});

test("PDF text over 50 KB: whole pages up to the cap and where to go on; one page alone over it is cut", async () => {
  const root = tempTree({});
  const line = (p: number, i: number) => `p${p} line ${i} `.padEnd(90, "x");
  ghostscriptPdf(
    root,
    "dense.pdf",
    Array.from({ length: 12 }, (_, p) => Array.from({ length: 60 }, (_, i) => line(p + 1, i))),
    10,
  );
  ghostscriptPdf(
    root,
    "huge.pdf",
    [Array.from({ length: 700 }, (_, i) => `${i} `.padEnd(100, "y")), ["second page"]],
    1,
  );
  const w = createWorkspace({ root, env: {} });
  const dense = await callTool(w, "read", { path: "dense.pdf" });
  assert.equal(dense.success, true, String(dense.error));
  assert.ok(Buffer.byteLength(dense.output) < 52 * 1024, `${Buffer.byteLength(dense.output)} bytes`);
  const shown = dense.pages as number[];
  assert.ok(shown.length >= 5 && shown.length < 12, String(shown));
  assert.match(
    dense.output,
    new RegExp(
      `\\n\\.\\.\\. \\(the text reached the 50 KB cap after page ${shown.length}; ask for pages: "${shown.length + 1}-12" next\\)$`,
    ),
  );
  assert.equal(dense.truncated, true);
  const huge = await callTool(w, "read", { path: "huge.pdf" });
  assert.equal(huge.success, true, String(huge.error));
  assert.deepEqual(huge.pages, [1]);
  assert.match(
    huge.output,
    /\n\.\.\. \(page 1 alone is over the 50 KB cap: its text is cut here; ask for pages: "2" next\)$/,
  );
});

test("files over 50 MB are not opened: a clear error before reading them", async () => {
  const root = tempTree({});
  for (const [name, head] of [
    ["huge.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ["huge.pdf", Buffer.from("%PDF-1.7\n")],
  ] as const) {
    const fd = fs.openSync(path.join(root, name), "w");
    fs.writeSync(fd, head);
    fs.ftruncateSync(fd, 51 * 1024 * 1024);
    fs.closeSync(fd);
  }
  const w = createWorkspace({ root, env: {} });
  for (const name of ["huge.png", "huge.pdf"]) {
    const r = await callTool(w, "read", { path: name });
    assert.equal(r.success, false);
    assert.equal(r.error, `${name}: 51 MiB is more than read opens (50 MiB)`);
  }
});

test("a notebook's image outputs go to a vision model as images; elsewhere they stay named with their size", async () => {
  const plot = await solid(2400, 1200).png().toBuffer();
  const cell = (id: string, outputs: unknown[]) => ({
    cell_type: "code",
    execution_count: 1,
    id,
    metadata: {},
    outputs,
    source: ["plot()"],
  });
  const nb = {
    cells: [
      cell("a1", [
        {
          output_type: "display_data",
          data: { "image/png": plot.toString("base64"), "text/plain": ["<Figure>"] },
          metadata: {},
        },
      ]),
      cell("b2", [{ output_type: "display_data", data: { "image/png": "bm90IGFuIGltYWdl" }, metadata: {} }]),
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  };
  const { call } = ws({ "plots.ipynb": JSON.stringify(nb, null, 1) });
  const plain = await call({ path: "plots.ipynb" });
  assert.equal(plain.success, true, String(plain.error));
  assert.equal(plain.images, undefined);
  assert.match(plain.output, /<output image\/png: \d+ bytes>/);
  const seen = await call({ path: "plots.ipynb" }, VISION);
  const images = seen.images as Array<{ width: number; height: number; media_type: string }>;
  assert.equal(images.length, 1);
  assert.deepEqual([images[0].media_type, images[0].width, images[0].height], ["image/png", 1568, 784]);
  assert.match(
    seen.output,
    /\n\(the image outputs of cell 1 follow as images, in order\)\n\(not shown: cell 2 \(image\/png output\): not a PNG, JPEG, GIF or WebP image\)$/,
  );
  const blind = await call({ path: "plots.ipynb" }, { vision: false, reason: "no" });
  assert.equal(blind.images, undefined);
});

test("as_images stops at the images' byte budget and says which pages to ask for next", async () => {
  const root = tempTree({});
  ghostscriptPdf(root, "four.pdf", [["Page A"], ["Page B"], ["Page C"], ["Page D"]]);
  const w = createWorkspace({ root, env: {} });
  const file = w.resolveFile("four.pdf");
  const one = await readPdf(w, file, { as_images: true }, () => Promise.resolve(VISION));
  const pageBytes = Buffer.from((one.images as Array<{ data_base64: string }>)[0].data_base64, "base64").length;
  // Room for two pages and a half: two are rendered, the note names the other two.
  const r = await readPdf(w, file, { as_images: true }, () => Promise.resolve(VISION), {
    imagesMaxBytes: Math.floor(pageBytes * 2.5),
  });
  assert.equal(r.success, true);
  assert.deepEqual(r.pages, [1, 2]);
  assert.equal((r.images as unknown[]).length, 2);
  assert.equal(r.truncated, true);
  assert.match(
    r.output,
    /^four\.pdf: PDF, 4 pages; pages 1-4, as 2 images \(one a page, in order: pages 1-2\); the images reached [\d.]+ KiB after page 2: ask for pages: "3-4" next$/,
  );
  assert.equal((one.images as unknown[]).length, 4, "the default budget takes all four");
});
