// Images for read: what an image file is (type, bytes, pixels), and
// the image made to fit a provider's documented limits (long edge, bytes, the
// formats it takes). Pure functions over bytes. sharp (libvips, prebuilt
// inside its npm packages) is imported on first use only: `rt open` and every
// other command start without it.
import { ToolError } from "../base/errors.js";
import { IMAGE_DECODE_TIMEOUT_S, IMAGE_MAX_PIXELS } from "../base/limits.js";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** What a model can take: the longest edge in pixels, the bytes of one image, the formats. */
export interface ImageLimits {
  maxEdge: number;
  maxBytes: number;
  formats: readonly ImageMediaType[];
}

export interface ImageInfo {
  mediaType: ImageMediaType;
  bytes: number;
  width: number;
  height: number;
  /** Frames of an animated GIF or WebP (only the first is sent). */
  frames: number;
}

/** An image as it goes to a model. */
export interface FittedImage {
  mediaType: ImageMediaType;
  /** The image bytes, base64. */
  data: string;
  width: number;
  height: number;
  bytes: number;
  /** True when these are not the file's own bytes (scaled down or converted). */
  changed: boolean;
}

const NAMES: Record<ImageMediaType, string> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
};

export function imageTypeName(t: ImageMediaType): string {
  return NAMES[t];
}

/** The type of an image from its first bytes (its magic number), or undefined when it is none of PNG, JPEG, GIF, WebP. */
export function sniffImageType(b: Uint8Array): ImageMediaType | undefined {
  const at = (offset: number, ascii: string) => ascii.split("").every((c, i) => b[offset + i] === c.charCodeAt(0));
  if (b.length >= 8 && b[0] === 0x89 && at(1, "PNG\r\n\x1a\n")) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && (at(0, "GIF87a") || at(0, "GIF89a"))) return "image/gif";
  if (b.length >= 12 && at(0, "RIFF") && at(8, "WEBP")) return "image/webp";
  return undefined;
}

type Sharp = typeof import("sharp").default;
let sharpModule: Promise<Sharp> | undefined;
function loadSharp(): Promise<Sharp> {
  sharpModule ??= import("sharp").then((m) => m.default);
  return sharpModule;
}

/** sharp's failure as a ToolError that names the file and says what is wrong. */
function unreadable(name: string, type: ImageMediaType, e: unknown): ToolError {
  const why = (e as Error).message?.split("\n")[0] ?? String(e);
  return new ToolError(`${name}: not a readable ${NAMES[type]} image (${why}); the file may be corrupt or truncated`);
}

/**
 * Decodes run one at a time in the process: a model answer may read several large images at
 * once, and each decode holds its strips and its output. Queued, their peak memory is one
 * decode's, not the sum.
 */
let decodeQueue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = decodeQueue.then(work, work);
  decodeQueue = run.catch(() => undefined);
  return run;
}

/**
 * sharp reading `bytes` within the budgets: pixels (refused by libvips before decoding), time,
 * and sequential (strip by strip) access, so that a scaled-down result never holds the whole
 * decoded image in memory.
 */
function bounded(sharp: Sharp, bytes: Buffer) {
  return sharp(bytes, { failOn: "error", limitInputPixels: IMAGE_MAX_PIXELS, sequentialRead: true }).timeout({
    seconds: IMAGE_DECODE_TIMEOUT_S,
  });
}

/** The pixel budget, checked on the header's dimensions (nothing decoded yet). */
function checkPixels(name: string, width: number, height: number): void {
  if (width * height <= IMAGE_MAX_PIXELS) return;
  const mega = (n: number) => `${(n / 1e6).toLocaleString("en-US", { maximumFractionDigits: 1 })} million`;
  throw new ToolError(
    `${name}: ${width}x${height} pixels (${mega(width * height)}) is over rt's budget of ${mega(IMAGE_MAX_PIXELS)} pixels for one image; it was not decoded (scale it down first, e.g. convert in.png -resize 4000x4000 out.png)`,
  );
}

/**
 * Type, size and pixel dimensions of an image, after decoding it (strip by
 * strip, into a small thumbnail that is thrown away): a truncated or corrupt
 * file fails here with a clear error, not later at the model's provider. An
 * image over the pixel budget is refused from its header, before any decoding.
 */
export async function imageInfo(name: string, bytes: Buffer): Promise<ImageInfo> {
  const mediaType = sniffImageType(bytes);
  if (!mediaType) throw new ToolError(`${name}: not a PNG, JPEG, GIF or WebP image`);
  const sharp = await loadSharp();
  let meta: Awaited<ReturnType<ReturnType<Sharp>["metadata"]>>;
  try {
    // The header only: libvips reads the dimensions without decoding pixels.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw unreadable(name, mediaType, e);
  }
  if (!meta.width || !meta.height) throw unreadable(name, mediaType, new Error("no dimensions in its header"));
  // Only the first frame of an animation is decoded (and sent).
  checkPixels(name, meta.width, meta.height);
  try {
    // Decoding every pixel is what finds a truncated file (the header alone reads fine).
    await oneAtATime(() => bounded(sharp, bytes).resize({ width: 32, height: 32, fit: "inside" }).raw().toBuffer());
    return { mediaType, bytes: bytes.length, width: meta.width, height: meta.height, frames: meta.pages ?? 1 };
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw unreadable(name, mediaType, e);
  }
}

/** The format an image is sent in: its own when the model takes it, else PNG (lossless) or JPEG. */
function targetType(own: ImageMediaType, limits: ImageLimits): ImageMediaType {
  if (limits.formats.includes(own) && own !== "image/gif") return own;
  // A GIF goes out as its first frame: providers take only still GIFs, and a PNG of the frame says the same.
  if (limits.formats.includes("image/png")) return "image/png";
  return limits.formats[0] ?? "image/png";
}

/**
 * The image within the limits: the file's own bytes when they already fit
 * (nothing lost), else scaled down to the long edge and re-encoded; when the
 * bytes are still too many, JPEG at falling quality, then smaller again.
 */
export async function fitImage(
  name: string,
  bytes: Buffer,
  limits: ImageLimits,
  known?: ImageInfo,
): Promise<FittedImage> {
  const info = known ?? (await imageInfo(name, bytes));
  const longEdge = Math.max(info.width, info.height);
  const stillGif = info.mediaType === "image/gif" && info.frames === 1;
  const sendsAsIs =
    longEdge <= limits.maxEdge &&
    bytes.length <= limits.maxBytes &&
    limits.formats.includes(info.mediaType) &&
    (info.mediaType !== "image/gif" || stillGif);
  if (sendsAsIs)
    return {
      mediaType: info.mediaType,
      data: bytes.toString("base64"),
      width: info.width,
      height: info.height,
      bytes: bytes.length,
      changed: false,
    };
  const sharp = await loadSharp();
  let type = targetType(info.mediaType, limits);
  let edge = Math.min(longEdge, limits.maxEdge);
  try {
    for (let attempt = 0; attempt < 8; attempt++) {
      const quality = attempt === 0 ? 90 : 80;
      let pipeline = bounded(sharp, bytes)
        .rotate()
        .resize({ width: edge, height: edge, fit: "inside", withoutEnlargement: true });
      if (type === "image/png") pipeline = pipeline.png({ compressionLevel: 9 });
      else if (type === "image/webp") pipeline = pipeline.webp({ quality });
      else pipeline = pipeline.jpeg({ quality, mozjpeg: true });
      const { data, info: out } = await oneAtATime(() => pipeline.toBuffer({ resolveWithObject: true }));
      if (data.length <= limits.maxBytes)
        return {
          mediaType: type,
          data: data.toString("base64"),
          width: out.width,
          height: out.height,
          bytes: data.length,
          changed: true,
        };
      // Too many bytes: a photo-like PNG shrinks most as JPEG; after that, fewer pixels.
      if (type !== "image/jpeg" && limits.formats.includes("image/jpeg")) type = "image/jpeg";
      else edge = Math.max(64, Math.floor(edge * 0.75));
    }
  } catch (e) {
    throw unreadable(name, info.mediaType, e);
  }
  throw new ToolError(`${name}: could not make the image fit in ${limits.maxBytes} bytes`);
}
