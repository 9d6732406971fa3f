// Fingerprints of file contents and of paths, without node:crypto for small
// inputs: loading it costs every `rt open` several milliseconds.
import crypto from "node:crypto";

/** Content from this size on is fingerprinted with SHA-1 (native, faster on large inputs). */
const NATIVE_HASH_FROM_BYTES = 1024 * 1024;

/**
 * Two independent 32-bit multiplicative hashes (FNV-1a and a murmur-style
 * lane) of `bytes`, as 16 hex digits. Not cryptographic: nobody forges
 * collisions against their own files and paths.
 */
export function hash64(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return `${(a >>> 0).toString(16).padStart(8, "0")}${(b >>> 0).toString(16).padStart(8, "0")}`;
}

/**
 * A content fingerprint: whether a file changed since rt last read it (line
 * IDs, external-change checks, undo). Below 1 MiB, the length and hash64;
 * from 1 MiB, SHA-1, which is faster there (node:crypto is loaded on first
 * use). The choice depends on the length only, so equal contents always get
 * equal fingerprints.
 */
export function hashBytes(data: Uint8Array | string | readonly Uint8Array[]): string {
  if (Array.isArray(data)) {
    // Content in pieces (an edit's unchanged head and tail, and its new middle): the same fingerprint as joined.
    const pieces = data as readonly Uint8Array[];
    const length = pieces.reduce((n, b) => n + b.length, 0);
    if (length < NATIVE_HASH_FROM_BYTES) return hashBytes(Buffer.concat(pieces));
    const h = crypto.createHash("sha1");
    for (const b of pieces) h.update(b);
    return h.digest("hex");
  }
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : (data as Uint8Array);
  if (bytes.length >= NATIVE_HASH_FROM_BYTES) return crypto.createHash("sha1").update(bytes).digest("hex");
  return `${bytes.length.toString(16)}-${hash64(bytes)}`;
}
