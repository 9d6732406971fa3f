// Generators of decompression bombs for the media tests: PNGs of many pixels and PDFs of streams
// that inflate to far more than their size. Each is made from one compressed block of zeros
// repeated (a sync flush ends each copy on a byte boundary), so a gigabyte of inflated data costs
// a few megabytes and a fraction of a second to make, never the gigabyte itself.
import zlib from "node:zlib";

const BLOCK = 1 << 22;
let block: Buffer | undefined;

/** zlib data (header, deflate, Adler-32) that inflates to `total` zero bytes. */
export function zlibZeros(total: number): Buffer {
  block ??= zlib.deflateRawSync(Buffer.alloc(BLOCK), { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const parts: Buffer[] = [Buffer.from([0x78, 0xda])];
  let left = total;
  while (left > BLOCK) {
    parts.push(block);
    left -= BLOCK;
  }
  parts.push(zlib.deflateRawSync(Buffer.alloc(left), { level: 9 }));
  const adler = Buffer.alloc(4);
  // The Adler-32 of n zero bytes: a = 1, b = n mod 65521.
  adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
  parts.push(adler);
  return Buffer.concat(parts);
}

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid RGB PNG of width x height black pixels (16383 x 16383: about 0.8 MB, 805 MB decoded). */
export function blackPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits per sample
  ihdr[9] = 2; // RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk("IHDR", ihdr),
    chunk("IDAT", zlibZeros(height * (1 + 3 * width))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A PDF of `pages.length` pages, page i's content stream FlateDecode (or LZWDecode) data
 * decoding to pages[i] bytes (zeros), with a correct cross-reference table. `extra` objects (dictionaries
 * with their stream) may be added, e.g. an image XObject.
 */
export function bombPdf(
  pages: number[],
  extra: Array<{ dict: string; data?: Buffer }> = [],
  filter: "FlateDecode" | "LZWDecode" = "FlateDecode",
  /** Instead of zeros: page i's content stream data, already encoded with `filter`, and what the page's dictionary adds. */
  page?: { data: (i: number) => Buffer; dict: string },
): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(typeof body === "string" ? Buffer.from(body, "latin1") : body);
  const firstPage = 3;
  const kids = pages.map((_, i) => `${firstPage + 2 * i} 0 R`).join(" ");
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  pages.forEach((size, i) => {
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${firstPage + 2 * i + 1} 0 R ${page?.dict ?? ""}>>`,
    );
    const data = page ? page.data(i) : filter === "FlateDecode" ? zlibZeros(size) : lzwZeros(size);
    add(
      Buffer.concat([
        Buffer.from(`<< /Length ${data.length} /Filter /${filter} >>\nstream\n`, "latin1"),
        data,
        Buffer.from("\nendstream", "latin1"),
      ]),
    );
  });
  for (const e of extra) {
    if (!e.data) add(e.dict);
    else
      add(Buffer.concat([Buffer.from(`${e.dict}\nstream\n`, "latin1"), e.data, Buffer.from("\nendstream", "latin1")]));
  }
  const out: Buffer[] = [Buffer.from("%PDF-1.7\n", "latin1")];
  let at = out[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, "latin1"), body, Buffer.from("\nendobj\n", "latin1")]);
    out.push(obj);
    at += obj.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`),
  ].join("");
  out.push(
    Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, "latin1"),
  );
  return Buffer.concat(out);
}

/** Writes LZW codes with PDF's code widths (9 to 12 bits, one code early: EarlyChange 1). */
class LzwCodes {
  private bytes: number[] = [];
  private acc = 0;
  private bits = 0;
  nextCode = 258;
  private width = 9;
  write(code: number): void {
    this.acc = (this.acc << this.width) | code;
    this.bits += this.width;
    while (this.bits >= 8) {
      this.bits -= 8;
      this.bytes.push((this.acc >>> this.bits) & 0xff);
    }
    this.acc &= (1 << this.bits) - 1;
  }
  /** After a code that added a dictionary entry (every code but the first after a clear). */
  grew(): void {
    if (this.nextCode < 4096) this.nextCode++;
    const c = this.nextCode + 1;
    if ((c & (c - 1)) === 0) this.width = Math.min(Math.log2(c) + 1, 12);
  }
  reset(): void {
    this.nextCode = 258;
    this.width = 9;
  }
  finish(): Buffer {
    this.write(257);
    if (this.bits > 0) this.bytes.push((this.acc << (8 - this.bits)) & 0xff);
    return Buffer.from(this.bytes);
  }
}

/** LZWDecode data (EarlyChange 1) of `text`: a plain LZW encoder, as PDF writers used it. */
export function lzwEncode(text: Buffer): Buffer {
  const out = new LzwCodes();
  out.write(256);
  let dict = new Map<string, number>();
  let next = 258;
  let first = true;
  let w = "";
  const emit = (code: number): void => {
    out.write(code);
    // The reader adds an entry for every code but the first after a clear.
    if (!first) out.grew();
    first = false;
  };
  for (const byte of text) {
    const c = String.fromCharCode(byte);
    if (w !== "" && (w + c).length > 1 && dict.has(w + c)) {
      w += c;
      continue;
    }
    if (w !== "") {
      emit(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!);
      dict.set(w + c, next++);
      if (next >= 4000) {
        emit(c.charCodeAt(0));
        out.write(256);
        out.reset();
        dict = new Map();
        next = 258;
        first = true;
        w = "";
        continue;
      }
    }
    w = c;
  }
  if (w !== "") emit(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!);
  return out.finish();
}

/**
 * LZWDecode data that decodes to at least `total` zero bytes: runs of 1, 2, ... 3,838 zeros (each
 * code the entry it defines), then the longest entry over and over: 12 bits for 3,838 bytes.
 */
export function lzwZeros(total: number): Buffer {
  const out = new LzwCodes();
  out.write(256);
  out.write(0);
  let size = 1;
  let length = 1;
  while (out.nextCode < 4095 && size < total) {
    out.write(out.nextCode);
    out.grew();
    size += ++length;
  }
  const longest = out.nextCode - 1;
  while (size < total) {
    out.write(longest);
    size += length;
  }
  return out.finish();
}

/**
 * A PDF whose pages are either plain (a line of text) or a time bomb: a number `depth` makes the
 * page draw a form that draws the next form twice, `depth` forms deep, the last showing one
 * letter. pdf.js reads (and renders) every form each time it is drawn, 2^(depth-1) times for a
 * file of a few kilobytes: depth 16 held pdf.js for 28 s on one page here, each level doubling it.
 */
export function nestedFormsPdf(pages: Array<string | { depth: number }>): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const stream = (dict: string, data: string) => `<< ${dict} /Length ${data.length} >>\nstream\n${data}\nendstream`;
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(""); // the page tree, once its kids are known
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  for (const page of pages) {
    let resources = `/Font << /F1 ${font} 0 R >>`;
    let content = `BT /F1 12 Tf 72 720 Td (${typeof page === "string" ? page : "Bomb"}) Tj ET`;
    if (typeof page !== "string") {
      // The forms, innermost first, so that each names the next by a number already known.
      let inner = add(
        stream(
          `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >>`,
          "BT /F1 12 Tf 1 0 0 1 72 700 Tm (a) Tj ET",
        ),
      );
      for (let k = 1; k < page.depth; k++) {
        inner = add(
          stream(
            `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X1 ${inner} 0 R >> >>`,
            "/X1 Do /X1 Do",
          ),
        );
      }
      resources += ` /XObject << /X1 ${inner} 0 R >>`;
      content += " /X1 Do";
    }
    const contents = add(stream("", content));
    kids.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << ${resources} >> /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let out = "%PDF-1.7\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
