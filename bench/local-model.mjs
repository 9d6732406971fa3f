// The `local` provider on the generated tiny model (test/agent/tinyGguf.ts): load and first
// token, tokens per second, and the process's memory with the model loaded, for 1 thread
// and for the machine's physical cores (the provider's default). Run alone, with tsx:
//   node --import tsx bench/local-model.mjs [--tokens N] [--model PATH.gguf]
// With --model, a real GGUF is measured instead of the generated one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { writeTinyGguf } from "../test/agent/tinyGguf.ts";
import { createLocalProvider, physicalCores, unloadLocalModels } from "../src/agent/providers/local.ts";

const { values } = parseArgs({ options: { tokens: { type: "string", default: "200" }, model: { type: "string" } } });
const tokens = Number(values.tokens);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-bench-local-"));
const modelPath = values.model ? path.resolve(values.model) : path.join(dir, "tiny.gguf");
if (!values.model) writeTinyGguf(modelPath, { seed: 1 });

const rows = [];
for (const threads of [...new Set([1, physicalCores()])]) {
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const provider = createLocalProvider({ modelPath, threads, gpu: false, contextSize: 4096, seed: 1 });
  let first;
  let out = 0;
  for await (const part of provider.stream({
    model: "bench",
    messages: [{ role: "user", content: "Write a short story about a file system." }],
    maxOutputTokens: tokens,
    temperature: 1,
  })) {
    if (part.type === "text" && first === undefined) first = performance.now();
    if (part.type === "usage") out = part.usage.outputTokens;
  }
  const end = performance.now();
  const rss = process.memoryUsage().rss;
  rows.push({
    threads,
    "load + first token ms": Math.round(first - t0),
    "tokens/s": Number(((out - 1) / ((end - first) / 1000)).toFixed(1)),
    "output tokens": out,
    "RSS MB": Math.round(rss / 1e6),
    "RSS added MB": Math.round((rss - rssBefore) / 1e6),
  });
  await unloadLocalModels();
}
console.log(
  `model: ${values.model ? modelPath : `generated tiny llama (${(fs.statSync(modelPath).size / 1e6).toFixed(2)} MB)`}; cores: ${physicalCores()} physical, load ${os.loadavg()[0].toFixed(1)}`,
);
console.table(rows);
fs.rmSync(dir, { recursive: true, force: true });
