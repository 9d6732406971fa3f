// The process behind test/rtMain.ts: plain Node (no TypeScript loader), which
// imports the built command line's `main` (the module dist/cli.js imports) once
// and runs it for each request that arrives over IPC, one at a time, each with
// the environment, working directory and standard input a spawned `rt` would
// get. Answers { id, code, stdout, stderr }.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const cli = process.argv[2];
// dist/cli.js loads the rest of rt with one dynamic import of the module that exports main.
const found = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/.exec(fs.readFileSync(cli, "utf8"));
if (!found) throw new Error(`${cli} imports no module: where is the command line's main?`);
const { main } = await import(pathToFileURL(path.resolve(path.dirname(cli), found[1])).href);
if (typeof main !== "function") throw new Error(`${found[1]} (imported by ${cli}) exports no main function`);

/** The output of the request being run; writes to process.stdout/stderr during it belong to it too. */
let current;
for (const [name, stream] of [
  ["stdout", process.stdout],
  ["stderr", process.stderr],
]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, encoding, cb) => {
    if (!current) return write(chunk, encoding, cb);
    current[name] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    const done = typeof encoding === "function" ? encoding : cb;
    if (done) process.nextTick(done);
    return true;
  };
}

async function run({ args, cwd, env, input }) {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  process.chdir(cwd);
  const out = { stdout: "", stderr: "" };
  current = out;
  const io = {
    stdout: (s) => void (out.stdout += s),
    stderr: (s) => void (out.stderr += s),
    write: (stream, data) => void (out[stream] += data.toString("utf8")),
    // As for a spawned rt in a test: standard output and error are pipes.
    tty: { stdout: false, stderr: false },
    cwd,
  };
  let code;
  try {
    code = await main(args, io, async () => input ?? "");
  } catch (e) {
    // As src/cli.ts reports an exception that escapes main.
    out.stderr += `rt: internal error: ${e?.stack ?? String(e)}\n`;
    code = 1;
  } finally {
    current = undefined;
  }
  return { code, ...out };
}

let queue = Promise.resolve();
process.on("message", (msg) => {
  queue = queue.then(async () => process.send({ id: msg.id, ...(await run(msg)) }));
});
// The test's process is done with it.
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
