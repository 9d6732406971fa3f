// `rt models pull` against a real HTTP server on the loopback: progress, a download
// resumed after the server cut the connection, HF_ENDPOINT for hf: URIs, a SHA-256
// mismatch refused with the partial file removed, nothing written outside the cache
// directory, an unreachable host said in one line with the manual alternative; then
// `rt models` listing and `rt models rm`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { rt, tempTree, treeHash, seededRandom } from "../helpers.ts";

const rand = seededRandom(35);
const BODY = Buffer.from(Array.from({ length: 300_000 }, () => rand.int(256)));
const SHA = crypto.createHash("sha256").update(BODY).digest("hex");

interface Hit {
  url: string;
  range?: string;
}
const hits: Hit[] = [];
let cutNext = false;
const server = http.createServer((req, res) => {
  hits.push({ url: req.url ?? "", ...(req.headers.range ? { range: req.headers.range } : {}) });
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = m ? Number(m[1]) : 0;
  if (start >= BODY.length) return void res.writeHead(416).end();
  const body = BODY.subarray(start);
  res.writeHead(m ? 206 : 200, {
    "content-length": body.length,
    ...(m ? { "content-range": `bytes ${start}-${BODY.length - 1}/${BODY.length}` } : {}),
  });
  if (cutNext) {
    // Half the bytes, then the connection is destroyed: a cut download.
    cutNext = false;
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.destroy(), 50));
    return;
  }
  res.end(body);
});
let base = "";

let root: string;
let cwd: string;
let config: string;
let cache: string;
function env(extra: Record<string, string> = {}) {
  return { XDG_CONFIG_HOME: config, XDG_CACHE_HOME: cache, HOME: root, HF_ENDPOINT: base, ...extra };
}
function setModels(models: unknown[]) {
  fs.writeFileSync(path.join(config, "rt", "config.json"), JSON.stringify({ local: { models } }));
}

before(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-dl-"));
  cwd = tempTree({ "a.txt": "a\n" });
  config = path.join(root, "config");
  cache = path.join(root, "cache");
  fs.mkdirSync(path.join(config, "rt"), { recursive: true });
});
after(() => {
  server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("rt models pull", () => {
  test("a cut download resumes with a Range request, shows progress, checks the SHA-256, lands in the cache only", async () => {
    setModels([{ name: "tiny", url: "hf:acme/tiny-GGUF/tiny-q4.gguf", sha256: SHA }]);
    const before = treeHash(cwd, []);
    hits.length = 0;
    cutNext = true;
    const first = await rt(["models", "pull", "tiny"], { cwd, env: env() });
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /run the same command again to resume/);
    const dir = path.join(cache, "rt", "models");
    const part = path.join(dir, "tiny.gguf.part");
    assert.ok(fs.existsSync(part) && fs.statSync(part).size > 0 && fs.statSync(part).size < BODY.length);
    const second = await rt(["models", "pull", "tiny"], { cwd, env: env() });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /\] 100% /);
    assert.match(second.stderr, /resumed at/);
    assert.deepEqual(
      hits.map((h) => h.url),
      ["/acme/tiny-GGUF/resolve/main/tiny-q4.gguf", "/acme/tiny-GGUF/resolve/main/tiny-q4.gguf"],
      "HF_ENDPOINT honoured",
    );
    assert.equal(hits[0].range, undefined);
    assert.match(hits[1].range ?? "", /^bytes=\d+-$/);
    assert.ok(fs.readFileSync(path.join(dir, "tiny.gguf")).equals(BODY));
    assert.deepEqual(fs.readdirSync(dir), ["tiny.gguf"]);
    assert.equal(treeHash(cwd, []), before, "nothing written in the working directory");
    assert.deepEqual(fs.readdirSync(root).sort(), ["cache", "config"], "nothing written outside the cache");
    const list = await rt(["models", "--json"], { cwd, env: env() });
    const models = JSON.parse(list.stdout).models as Array<{ name: string; downloaded: boolean }>;
    assert.equal(models.find((m) => m.name === "tiny")?.downloaded, true);
    assert.equal(models.find((m) => m.name === "qwen3-4b")?.downloaded, false, "the built-in catalogue is listed");
    const rm = await rt(["models", "rm", "tiny"], { cwd, env: env() });
    assert.equal(rm.code, 0, rm.stderr);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test("a SHA-256 mismatch is refused and the partial file removed", async () => {
    setModels([{ name: "bad", url: `${base}/bad.gguf`, sha256: "0".repeat(64) }]);
    const r = await rt(["models", "pull", "bad"], { cwd, env: env() });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /does not match its SHA-256 \(expected 0{64}, got [0-9a-f]{64}\); the file was removed/);
    assert.deepEqual(fs.readdirSync(path.join(cache, "rt", "models")), []);
  });

  test("an unreachable host: one line within seconds, with the manual alternative", async () => {
    const closed = await new Promise<number>((r) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    setModels([]);
    const t0 = Date.now();
    const r = await rt(["models", "pull", "qwen3-4b"], {
      cwd,
      env: env({ HF_ENDPOINT: `http://127.0.0.1:${closed}` }),
    });
    assert.equal(r.code, 1);
    assert.ok(Date.now() - t0 < 30_000);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(
      r.stderr,
      /cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\); download http:\/\/127\.0\.0\.1:\d+\/Qwen\/Qwen3-4B-GGUF\/resolve\/main\/Qwen3-4B-Q4_K_M\.gguf yourself and run rt with --model local\/PATH\.gguf/,
    );
  });

  test("bad names and a bad catalogue entry are refused, naming what is valid", async () => {
    setModels([]);
    const r = await rt(["models", "pull", "nope"], { cwd, env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown model "nope"; the catalogue has qwen2\.5-coder-1\.5b, qwen3-4b/);
    setModels([{ name: "../escape", url: `${base}/x.gguf` }]);
    const bad = await rt(["models"], { cwd, env: env() });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /local\.models\.0\.name: model names use letters, digits/);
  });
});
