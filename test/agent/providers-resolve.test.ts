// Choosing the provider and model (flags, environment, project and user
// configuration), and checking the choice can be reached before the first turn.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { tempTree } from "../helpers.ts";
import { trustFolder } from "../security/trust-harness.ts";
import { startLlmServer, type LlmServer } from "../llm-server.ts";
import { ConfigError, loadConfig } from "../../src/base/config.ts";
import {
  ModelChoiceError,
  ollamaRoot,
  resolveModel,
  resolveModelForWorkspace,
  type ModelFlags,
} from "../../src/agent/providers/resolve.ts";
import { checkReachable } from "../../src/agent/providers/reachability.ts";
import { closedPort, drain, FAST } from "./providerHelpers.ts";

describe("resolve: which provider and model", () => {
  test("nothing configured: a local Ollama at 127.0.0.1:11434 (its native API, no /v1), no model named yet", () => {
    const r = resolveModel({ env: {} });
    assert.equal(r.providerName, "ollama");
    assert.equal(r.kind, "ollama");
    assert.equal(r.provider.name, "ollama");
    assert.equal(r.baseURL, "http://127.0.0.1:11434");
    assert.equal(r.model, undefined);
    assert.equal(r.origins.model, "the default");
  });

  test("--model provider/model, for each built-in provider", () => {
    const cases: Array<[string, string, string, string]> = [
      ["ollama/qwen2.5-coder:7b", "ollama", "qwen2.5-coder:7b", "http://127.0.0.1:11434"],
      ["openai/gpt-4.1", "openai", "gpt-4.1", "https://api.openai.com/v1"],
      ["anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", "https://api.anthropic.com"],
      [
        "openrouter/anthropic/claude-3.5-sonnet",
        "openai-compatible",
        "anthropic/claude-3.5-sonnet",
        "https://openrouter.ai/api/v1",
      ],
      ["lmstudio/qwen3-8b", "openai-compatible", "qwen3-8b", "http://127.0.0.1:1234/v1"],
    ];
    for (const [spec, providerKind, model, baseURL] of cases) {
      const r = resolveModel({ flags: { model: spec }, env: {} });
      assert.equal(r.provider.name, providerKind, spec);
      assert.equal(r.model, model, spec);
      assert.equal(r.baseURL, baseURL, spec);
      assert.equal(r.label, spec, spec);
    }
  });

  test("openai-compatible/NAME takes its address from --base-url (or OPENAI_BASE_URL), and needs one", () => {
    const r = resolveModel({
      flags: { model: "openai-compatible/my-model", baseUrl: "http://10.1.2.3:8000/v1/" },
      env: {},
    });
    assert.equal(r.kind, "openai-compatible");
    assert.equal(r.model, "my-model");
    assert.equal(r.baseURL, "http://10.1.2.3:8000/v1");
    const fromEnv = resolveModel({
      flags: { model: "openai-compatible/m" },
      env: { OPENAI_BASE_URL: "http://h:1/v1", OPENAI_API_KEY: "k" },
    });
    assert.equal(fromEnv.baseURL, "http://h:1/v1");
    assert.equal(fromEnv.hasKey, true);
    assert.throws(
      () => resolveModel({ flags: { model: "openai-compatible/m" }, env: {} }),
      (e: unknown) => e instanceof ModelChoiceError && /--base-url/.test(e.message),
    );
  });

  test("a --base-url with a bare model name means an OpenAI-compatible server", () => {
    const r = resolveModel({ flags: { model: "llama-3-8b", baseUrl: "http://127.0.0.1:8080/v1" }, env: {} });
    assert.equal(r.kind, "openai-compatible");
    assert.equal(r.model, "llama-3-8b");
  });

  test("a bare --model keeps the configured provider", () => {
    const r = resolveModel({
      flags: { model: "claude-haiku-4-5" },
      env: {},
      config: { model: "anthropic/claude-sonnet-4-5" },
    });
    assert.equal(r.providerName, "anthropic");
    assert.equal(r.model, "claude-haiku-4-5");
  });

  test("an unknown provider prefix is an error naming the known ones", () => {
    assert.throws(
      () => resolveModel({ flags: { model: "antropic/claude" }, env: {} }),
      (e: unknown) =>
        e instanceof ModelChoiceError && /unknown provider "antropic"/.test(e.message) && /anthropic/.test(e.message),
    );
  });

  test("a hosted API needs a model name", () => {
    assert.throws(
      () => resolveModel({ flags: { model: "openai/" }, env: {} }),
      (e: unknown) => e instanceof ModelChoiceError && /openai\/gpt-4.1/.test(e.message),
    );
    assert.throws(
      () => resolveModel({ flags: { model: "anthropic" }, env: {} }),
      (e: unknown) => e instanceof ModelChoiceError && /anthropic\/claude-sonnet-4-5/.test(e.message),
    );
  });

  test("a bare provider name chooses the provider; a local one picks its model later", () => {
    const r = resolveModel({ flags: { model: "lmstudio" }, env: {} });
    assert.equal(r.providerName, "lmstudio");
    assert.equal(r.model, undefined);
  });

  test("a provider named in the configuration: its type, address, key variable and headers", async () => {
    const server = await startLlmServer();
    try {
      server.script({ text: "hi" });
      const r = resolveModel({
        flags: { model: "box/test-model" },
        env: { BOX_KEY: "secret" },
        config: {
          providers: { box: { base_url: server.openaiBaseUrl, api_key_env: "BOX_KEY", headers: { "x-team": "rt" } } },
        },
        providerOptions: FAST,
      });
      assert.equal(r.kind, "openai-compatible");
      assert.equal(r.origins.key, "BOX_KEY (the configuration (providers.box.api_key_env))");
      const out = await drain(r.provider.stream({ model: r.model!, messages: [{ role: "user", content: "x" }] }));
      assert.equal(out.text, "hi");
      assert.equal(server.completions[0].headers.authorization, "Bearer secret");
      assert.equal(server.completions[0].headers["x-team"], "rt");
    } finally {
      await server.close();
    }
  });

  test("OLLAMA_HOST in the forms Ollama accepts", () => {
    assert.equal(ollamaRoot("0.0.0.0"), "http://127.0.0.1:11434");
    assert.equal(ollamaRoot("127.0.0.1:9999"), "http://127.0.0.1:9999");
    assert.equal(ollamaRoot("http://gpu-box:11434/"), "http://gpu-box:11434");
    assert.equal(ollamaRoot("gpu-box"), "http://gpu-box:11434");
    assert.equal(ollamaRoot("[::1]"), "http://[::1]:11434");
    assert.equal(ollamaRoot("[::1]:9000"), "http://[::1]:9000");
    // With a scheme, the scheme's port, as Ollama reads it.
    assert.equal(ollamaRoot("https://ollama.example.com"), "https://ollama.example.com");
    assert.equal(ollamaRoot("http://h:8080/v1"), "http://h:8080");
    const r = resolveModel({ env: { OLLAMA_HOST: "0.0.0.0:12345" } });
    assert.equal(r.baseURL, "http://127.0.0.1:12345");
    assert.equal(r.origins.baseURL, "OLLAMA_HOST");
  });

  test("ANTHROPIC_BASE_URL with /v1 is accepted (the client adds /v1/messages itself)", () => {
    const r = resolveModel({
      flags: { model: "anthropic/claude-x" },
      env: { ANTHROPIC_BASE_URL: "http://proxy:9000/v1" },
    });
    assert.equal(r.baseURL, "http://proxy:9000");
  });
});

describe("resolve: precedence flag > environment > project config > user config", () => {
  let home: string;
  let root: string;
  const userFile = () => path.join(home, ".config", "rt", "config.json");
  const projectFile = () => path.join(root, ".rt", "config.json");
  const write = (file: string, data: unknown) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(data));
    // Precedence among sources the user chose: the project is trusted (test/security/trust-*.test.ts covers untrusted ones).
    if (file === projectFile()) trustFolder(root, { HOME: home });
  };
  before(() => {
    home = tempTree({}, "rt-home-");
    root = tempTree({}, "rt-root-");
  });
  const resolveWith = (flags: ModelFlags, env: Record<string, string>) =>
    resolveModelForWorkspace({ root, env: { HOME: home, ...env } }, flags);

  test("base URL and key", () => {
    write(userFile(), {
      model: "openai/gpt-4.1",
      providers: { openai: { base_url: "http://user.example/v1", api_key: "user-key" } },
    });
    write(projectFile(), { providers: { openai: { base_url: "http://project.example/v1", api_key: "project-key" } } });
    const env = { OPENAI_BASE_URL: "http://env.example/v1", OPENAI_API_KEY: "env-key" };

    let r = resolveWith({ baseUrl: "http://flag.example/v1", apiKey: "flag-key" }, env);
    assert.equal(r.baseURL, "http://flag.example/v1");
    assert.deepEqual([r.origins.baseURL, r.origins.key], ["--base-url", "--api-key"]);

    r = resolveWith({}, env);
    assert.equal(r.baseURL, "http://env.example/v1");
    assert.deepEqual([r.origins.baseURL, r.origins.key], ["OPENAI_BASE_URL", "OPENAI_API_KEY"]);

    r = resolveWith({}, {});
    assert.equal(r.baseURL, "http://project.example/v1");
    assert.equal(r.origins.key, "the configuration (providers.openai.api_key)");

    fs.rmSync(projectFile());
    r = resolveWith({}, {});
    assert.equal(r.baseURL, "http://user.example/v1");
    assert.equal(r.model, "gpt-4.1");
    fs.rmSync(userFile());
  });

  test("the model: --model > project config > user config > default", () => {
    write(userFile(), { model: "anthropic/claude-user" });
    write(projectFile(), { model: "ollama/project-model" });
    assert.equal(resolveWith({ model: "openai/gpt-flag" }, {}).label, "openai/gpt-flag");
    assert.equal(resolveWith({}, {}).label, "ollama/project-model");
    fs.rmSync(projectFile());
    assert.equal(resolveWith({}, {}).label, "anthropic/claude-user");
    fs.rmSync(userFile());
    assert.equal(resolveWith({}, {}).providerName, "ollama");
  });

  test("OLLAMA_HOST beats the configured Ollama address", () => {
    write(projectFile(), { providers: { ollama: { base_url: "http://configured:11434" } } });
    assert.equal(resolveWith({}, {}).baseURL, "http://configured:11434");
    assert.equal(resolveWith({}, { OLLAMA_HOST: "other:1" }).baseURL, "http://other:1");
    fs.rmSync(projectFile());
  });

  test("a malformed providers section is a ConfigError naming the file", () => {
    write(projectFile(), { providers: { openai: { type: "gpt" } } });
    assert.throws(
      () => loadConfig({ root, env: { HOME: home } }),
      (e: unknown) =>
        e instanceof ConfigError && e.message.includes(projectFile()) && /providers\.openai\.type/.test(e.message),
    );
    fs.rmSync(projectFile());
  });
});

describe("checkReachable", () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({
      models: [{ name: "qwen2.5-coder:7b", contextLength: 32768 }, { name: "llama3:latest" }],
    });
  });
  after(() => server.close());

  test("default Ollama not running: says what was tried and how to configure another provider", async () => {
    const port = await closedPort();
    const home = tempTree({}, "rt-home-");
    const root = tempTree({}, "rt-root-");
    const resolved = resolveModelForWorkspace({ root, env: { HOME: home, OLLAMA_HOST: `127.0.0.1:${port}` } });
    const r = await checkReachable(resolved, { env: {} });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.reason, "unreachable");
    const m = r.message;
    // What was tried, and why.
    assert.match(
      m,
      new RegExp(
        `^rt: cannot reach a model\\. Tried Ollama at http://127\\.0\\.0\\.1:${port} \\(the default, as no model is configured; address from OLLAMA_HOST\\): connection refused`,
      ),
    );
    // How to get going: Ollama itself, flags, environment, configuration files (the real paths) with an example.
    assert.match(m, /ollama serve/);
    assert.match(m, /ollama pull qwen2\.5-coder:7b/);
    assert.match(m, /--model anthropic\/claude-sonnet-4-5/);
    assert.match(m, /--model openai\/gpt-4\.1/);
    assert.match(m, /--model openai-compatible\/MODEL --base-url http:\/\/HOST:PORT\/v1/);
    for (const v of ["OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"])
      assert.ok(m.includes(v), v);
    assert.ok(m.includes(path.join(home, ".config", "rt", "config.json")));
    assert.ok(m.includes(path.join(root, ".rt", "config.json")));
    const example = m.slice(m.indexOf("{"), m.lastIndexOf("}") + 1);
    assert.deepEqual(JSON.parse(example), {
      model: "anthropic/claude-sonnet-4-5",
      providers: { anthropic: { api_key_env: "ANTHROPIC_API_KEY" } },
    });
  });

  test("an address fetch refuses to use (port 1) is unreachable too", async () => {
    const r = await checkReachable(resolveModel({ env: { OLLAMA_HOST: "127.0.0.1:1" } }), { env: {} });
    assert.ok(!r.ok);
    assert.equal(r.reason, "unreachable");
    assert.match(r.message, /Tried Ollama at http:\/\/127\.0\.0\.1:1 .*bad port/);
  });

  test("something that is not Ollama at the Ollama address: says what it answered", async () => {
    const other = http.createServer((_req, res) => res.writeHead(404).end("404 page not found"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const port = (other.address() as AddressInfo).port;
      const r = await checkReachable(resolveModel({ env: { OLLAMA_HOST: `127.0.0.1:${port}` } }), { env: {} });
      assert.ok(!r.ok);
      assert.equal(r.reason, "no_model");
      assert.match(r.message, /\/api\/tags answered 404: is this an Ollama server\?/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test("a key already in the environment is suggested", async () => {
    const port = await closedPort();
    const r = await checkReachable(resolveModel({ env: { OLLAMA_HOST: `127.0.0.1:${port}` } }), {
      env: { ANTHROPIC_API_KEY: "x" },
    });
    assert.ok(!r.ok && /ANTHROPIC_API_KEY is set/.test(r.message));
  });

  test("Ollama running, no model named: the first one it lists is used", async () => {
    const r = await checkReachable(resolveModel({ env: { OLLAMA_HOST: server.url } }));
    assert.ok(r.ok);
    assert.equal(r.resolved.model, "qwen2.5-coder:7b");
    assert.equal(r.resolved.label, "ollama/qwen2.5-coder:7b");
  });

  test("Ollama running without the named model: says so and how to pull it", async () => {
    const r = await checkReachable(
      resolveModel({ flags: { model: "ollama/mistral" }, env: { OLLAMA_HOST: server.url } }),
    );
    assert.ok(!r.ok);
    assert.equal(r.reason, "model_missing");
    assert.match(r.message, /has no model "mistral" \(pulled: qwen2\.5-coder:7b, llama3:latest/);
    assert.match(r.message, /ollama pull mistral/);
  });

  test('"llama3" matches Ollama\'s "llama3:latest"', async () => {
    const r = await checkReachable(
      resolveModel({ flags: { model: "ollama/llama3" }, env: { OLLAMA_HOST: server.url } }),
    );
    assert.ok(r.ok);
  });

  test("Ollama running with no model pulled", async () => {
    const empty = await startLlmServer({ models: [] });
    try {
      const r = await checkReachable(resolveModel({ env: { OLLAMA_HOST: empty.url } }));
      assert.ok(!r.ok && r.reason === "no_model" && /ollama pull/.test(r.message));
    } finally {
      await empty.close();
    }
  });

  test("a hosted API without a key: said before any request", async () => {
    const r = await checkReachable(resolveModel({ flags: { model: "anthropic/claude-sonnet-4-5" }, env: {} }), {
      env: {},
    });
    assert.ok(!r.ok);
    assert.equal(r.reason, "no_key");
    assert.match(r.message, /needs an API key/);
    assert.match(r.message, /set ANTHROPIC_API_KEY, or pass --api-key/);
  });

  test("a key the server rejects: auth, naming where the key came from", async () => {
    const locked = await startLlmServer({ requireKey: "right" });
    try {
      const resolved = resolveModel({
        flags: { model: "openai-compatible/test-model", baseUrl: locked.openaiBaseUrl },
        env: { OPENAI_API_KEY: "wrong" },
      });
      const r = await checkReachable(resolved);
      assert.ok(!r.ok);
      assert.equal(r.reason, "auth");
      assert.match(r.message, /rejected the API key \(the key came from OPENAI_API_KEY\)/);
      const ok = await checkReachable(
        resolveModel({
          flags: { model: "openai-compatible/test-model", baseUrl: locked.openaiBaseUrl, apiKey: "right" },
          env: {},
        }),
      );
      assert.ok(ok.ok);
    } finally {
      await locked.close();
    }
  });

  test("an Anthropic-compatible server is reached through its model list", async () => {
    const r = await checkReachable(
      resolveModel({
        flags: { model: "anthropic/claude-x" },
        env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "k" },
      }),
    );
    assert.ok(r.ok);
    assert.equal(r.resolved.model, "claude-x");
  });
});
