#!/usr/bin/env node
// The `rt` executable. Kept tiny: everything else loads on demand.
import { main } from "./faces/cli/main.js";

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

const out = (s: string) => void process.stdout.write(s);
const err = (s: string) => void process.stderr.write(s);
const write = (stream: "stdout" | "stderr", data: Buffer) => void (stream === "stdout" ? process.stdout : process.stderr).write(data);
// Asked only when needed: creating process.stdout loads Node's stream modules,
// which a command should not pay for before it has started its work.
const tty = {
  get stdout() {
    return process.stdout.isTTY === true;
  },
  get stderr() {
    return process.stderr.isTTY === true;
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
