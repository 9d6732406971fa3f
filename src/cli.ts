#!/usr/bin/env node
// The `rt` executable. Kept tiny: everything else loads on demand.
import { fstatSync, writeSync } from "node:fs";
import nodeModule from "node:module";

// Node 22.1+ keeps the code it compiles in a cache on disk and reuses it at the
// next start (docs/build.md); older Nodes have no such function. Called before
// the rest of rt is imported, so that all of it is cached.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import("./faces/cli/main.js");

/** Standard input as text, or null when it is a terminal (nothing was piped). */
function readStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

/**
 * Whether a descriptor is a terminal. Creating process.stdout, or loading
 * node:tty, loads Node's stream and net modules (about 5 ms, more than `rt open`
 * spends on its work), so a pipe or a file is recognised by fstat first and only
 * a character device is asked about.
 */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return fd === 1 ? process.stdout.isTTY === true : process.stderr.isTTY === true;
}

/**
 * Writes to standard output or error with write(2) directly, for the same
 * reason. A descriptor left non-blocking by whoever opened it (EAGAIN) is
 * handed to Node's stream for the rest of the run, so the order of the output
 * is kept; a reader that went away (EPIPE: `rt grep x | head`) ends the output
 * quietly, as with other Unix tools.
 */
function descriptorWriter(fd: 1 | 2): (data: string | Buffer) => void {
  let viaStream = false;
  let closed = false;
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  return (data) => {
    if (closed) return;
    if (viaStream) return void stream().write(data);
    let buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    while (buf.length > 0) {
      try {
        buf = buf.subarray(writeSync(fd, buf));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") {
          viaStream = true;
          stream().write(buf);
        } else if (code === "EPIPE") closed = true;
        else throw e;
        return;
      }
    }
  };
}

const stdout = descriptorWriter(1);
const stderr = descriptorWriter(2);
const out = (s: string) => stdout(s);
const err = (s: string) => stderr(s);
const write = (stream: "stdout" | "stderr", data: Buffer) => (stream === "stdout" ? stdout : stderr)(data);
// Asked only when needed.
let ttys: { stdout: boolean; stderr: boolean } | undefined;
const tty = {
  get stdout() {
    return (ttys ??= { stdout: isTerminal(1), stderr: isTerminal(2) }).stdout;
  },
  get stderr() {
    return (ttys ??= { stdout: isTerminal(1), stderr: isTerminal(2) }).stderr;
  },
};

main(process.argv.slice(2), { stdout: out, stderr: err, write, tty }, readStdin).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    err(`rt: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
