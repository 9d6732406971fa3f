// The zero-setup path: no model configured, nothing at OLLAMA_HOST, no API key. Without a
// terminal, `rt run` refuses in one line naming --yes and `rt models pull`, and downloads
// nothing; on a terminal (tmux) it asks, says the size and where the model goes, and after
// "y" downloads it from the (loopback) host and continues with it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { CLI, rt, tempTree } from "../helpers.ts";
import { Tmux } from "../ui/tmux.ts";
import { writeTinyGguf } from "./tinyGguf.ts";

let root: string;
let cwd: string;
let model: Buffer;
const hits: string[] = [];
const server = http.createServer((req, res) => {
  hits.push(req.url ?? "");
  res.writeHead(200, { "content-length": model.length }).end(model);
});
let base = "";
let closedPort = 0;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-consent-"));
  cwd = tempTree({ "a.txt": "a\n" });
  const file = path.join(root, "tiny.gguf");
  writeTinyGguf(file, { seed: 3 });
  model = fs.readFileSync(file);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closedPort = await new Promise<number>((r) => {
    const s = http.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => r(p));
    });
  });
  fs.mkdirSync(path.join(root, "config", "rt"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "config", "rt", "config.json"),
    JSON.stringify({
      local: {
        default_model: "tiny",
        threads: 1,
        gpu: false,
        context_size: 8192,
        models: [{ name: "tiny", url: `${base}/tiny.gguf`, size: model.length, description: "a test model" }],
      },
      agent: { max_output_tokens: 20, tool_choice: "none" },
    }),
  );
});
after(() => {
  server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const env = () => ({
  XDG_CONFIG_HOME: path.join(root, "config"),
  XDG_CACHE_HOME: path.join(root, "cache"),
  OLLAMA_HOST: `127.0.0.1:${closedPort}`,
  ANTHROPIC_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
});

describe("zero setup", () => {
  test("without a terminal: one line naming --yes and rt models pull; nothing downloaded", async () => {
    hits.length = 0;
    const r = await rt(["run", "hello"], { cwd, env: env() });
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0],
      /No model is configured, nothing answers at Ollama at http:\/\/127\.0\.0\.1:\d+ and no API key is set; the local model tiny \(about [\d.]+ kB\) is not downloaded: pass --yes to download it to .*cache\/rt\/models, or run `rt models pull tiny` first/,
    );
    assert.deepEqual(hits, [], "connected to no download host");
    assert.equal(fs.existsSync(path.join(root, "cache")), false);
  });

  test("on a terminal: the question names size, place and alternatives; y downloads and the run continues", async (t) => {
    hits.length = 0;
    const tmux = new Tmux(160, 40);
    const e = { ...process.env, ...env(), TERM: "xterm-256color" };
    delete e.ANTHROPIC_API_KEY;
    delete e.OPENAI_API_KEY;
    tmux.start(t, `node ${CLI} run --approval plan --max-turns 1 hello; echo EXIT=$?; sleep 60`, e, cwd);
    const screen = await tmux.waitFor(/Download tiny now\? \[y\/N\]/, 60_000);
    assert.match(screen, /No model is configured/);
    assert.match(screen, /rt can download tiny \(about [\d.]+ kB; a test model\)/);
    assert.match(screen, /cache\/rt\/models/);
    assert.match(screen, /--model local\/NAME \(rt models lists them\)/);
    assert.deepEqual(hits, [], "nothing downloaded before the answer");
    tmux.type("y");
    tmux.keys("Enter");
    const done = await tmux.waitFor(/EXIT=\d+/, 120_000);
    assert.deepEqual(hits, ["/tiny.gguf"]);
    assert.ok(fs.readFileSync(path.join(root, "cache", "rt", "models", "tiny.gguf")).equals(model));
    // The run went on with the downloaded model: an answer (exit 0), or one its random weights let run to the
    // 20-token limit (exit 1, said as a cut answer); not a setup error (exit 2).
    assert.match(done, /EXIT=0|cut off at the model's output limit[\s\S]*EXIT=1/, done);
  });
});
