// The MCP face returns images as MCP image content (issue 16): read of an image,
// and a PDF's pages with as_images, come back as {type: "image", data, mimeType}
// after the text, fitted to the tightest limits rt knows (Anthropic's 1568 px),
// never in _meta; the structured content matches read's output schema (the SDK
// client checks it).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import fs from "node:fs";
import sharp from "sharp";
import { tempTree } from "../helpers.js";
import { call, connectStdio, type StdioSession } from "./helpers.js";

let s: StdioSession;
let root: string;
let png: Buffer;
before(async () => {
  png = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: "#208040" } })
    .png()
    .toBuffer();
  root = tempTree({
    "big.png": png,
    "doc.ps":
      "/Helvetica findfont 20 scalefont setfont\n72 700 moveto (MCP page one) show\nshowpage\n72 700 moveto (MCP page two) show\nshowpage\n",
  });
  execFileSync("gs", [
    "-q",
    "-dNOPAUSE",
    "-dBATCH",
    "-dSAFER",
    "-sDEVICE=pdfwrite",
    `-sOutputFile=${path.join(root, "doc.pdf")}`,
    path.join(root, "doc.ps"),
  ]);
  fs.rmSync(path.join(root, "doc.ps"));
  s = await connectStdio(root);
});
after(() => s.close());

test("read of an image: text, then an image content block scaled to 1568 px; nothing of it in _meta", async () => {
  const { isError, result: r } = await call(s.client, "read", { path: "big.png" });
  assert.equal(isError, false);
  const content = r.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  assert.equal(content.length, 2);
  assert.match(
    content[0].text!,
    /^big\.png: PNG image, [\d,]+ bytes, 2000x1000 pixels\n\(shown to you scaled to 1568x784 pixels, PNG/,
  );
  assert.equal(content[1].type, "image");
  assert.equal(content[1].mimeType, "image/png");
  const sent = await sharp(Buffer.from(content[1].data!, "base64")).metadata();
  assert.deepEqual([sent.width, sent.height], [1568, 784]);
  assert.ok(!JSON.stringify(r._meta).includes(content[1].data!.slice(0, 40)));
  assert.deepEqual(r.structuredContent, { path: "big.png", total_lines: 0, truncated: false });
  const meta = r._meta?.["rt/result"] as Record<string, unknown>;
  assert.deepEqual([meta.media_type, meta.width, meta.height], ["image/png", 2000, 1000]);
});

test("read of a PDF: the text of its pages; as_images: one image block a page", async () => {
  const { isError, result: text } = await call(s.client, "read", { path: "doc.pdf" });
  assert.equal(isError, false);
  assert.match(
    (text.content as Array<{ text: string }>)[0].text,
    /^doc\.pdf: PDF, 2 pages; pages 1-2\n--- page 1 ---\nMCP page one\n--- page 2 ---\nMCP page two$/,
  );
  assert.deepEqual((text._meta?.["rt/result"] as { pages: number[]; total_pages: number }).pages, [1, 2]);
  const { isError: failed, result: images } = await call(s.client, "read", { path: "doc.pdf", as_images: true });
  assert.equal(failed, false, JSON.stringify(images.content).slice(0, 300));
  const blocks = images.content as Array<{ type: string; mimeType?: string }>;
  assert.deepEqual(
    blocks.map((b) => b.type),
    ["text", "image", "image"],
  );
  assert.ok(blocks.slice(1).every((b) => b.mimeType === "image/png"));
});
