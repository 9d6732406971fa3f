// Language servers in a folder the user has not trusted: no file of the repository picks the
// program that runs (a planted rust-toolchain.toml with the real rustup proxy; the toolchain
// pins a stand-in server sees), answers never name or quote files outside the root (hover and
// definition of a symbol from a symlinked outside file or an absolute import, through the real
// typescript-language-server), servers rt does not bundle are found on the user's PATH, and
// workspace_symbols works without a path.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { lspManager } from "../../src/lsp/manager.ts";
import { REPO, rt, tempTree } from "../helpers.ts";

const workspaces: Workspace[] = [];
function ws(root: string, env: Record<string, string> = {}): Workspace {
  const w = createWorkspace({
    root,
    state: true,
    env: {
      ...process.env,
      XDG_CONFIG_HOME: path.join(root, ".no-user-config"),
      RUSTUP_TOOLCHAIN: undefined,
      GOTOOLCHAIN: undefined,
      PYENV_VERSION: undefined,
      ...env,
    },
  });
  workspaces.push(w);
  return w;
}
after(async () => {
  for (const w of workspaces) await lspManager(w).stopAll();
});

test("hover and definition of a symbol from a file outside the root (a symlink, an absolute import) show nothing of it", async () => {
  const outside = tempTree({ "secret.ts": 'export const API_TOKEN = "sk-outside-4711";\n' }, "rt-outside-");
  const root = tempTree({
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler", noEmit: true },
    }),
    "a.ts": 'import { API_TOKEN } from "./secret";\nconsole.log(API_TOKEN);\n',
    "b.ts": `import { API_TOKEN } from ${JSON.stringify(path.join(outside, "secret"))};\nconsole.log(API_TOKEN);\n`,
    "c.ts": 'export const LOCAL = "inside-value";\nconsole.log(LOCAL);\n',
  });
  fs.symlinkSync(path.join(outside, "secret.ts"), path.join(root, "secret.ts"));
  const w = ws(root);
  for (const file of ["a.ts", "b.ts"]) {
    const hover = await callTool(w, "lsp", { operation: "hover", path: file, line: 2, symbol: "API_TOKEN" });
    assert.equal(hover.success, true, hover.error);
    assert.doesNotMatch(JSON.stringify(hover), /sk-outside-4711/, `${file}: ${hover.output}`);
    assert.match(hover.output, /defined in a file outside the workspace/);
    const def = await callTool(w, "lsp", { operation: "definition", path: file, line: 2, symbol: "API_TOKEN" });
    assert.equal(def.success, true, def.error);
    assert.doesNotMatch(
      JSON.stringify(def),
      new RegExp(`sk-outside|${outside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|secret\\.ts`),
      `${file}: ${def.output}`,
    );
    assert.match(def.output, /1 location in files outside the workspace not shown/);
  }
  // Inside the root, hover still shows the declaration.
  const own = await callTool(w, "lsp", { operation: "hover", path: "c.ts", line: 2, symbol: "LOCAL" });
  assert.match(own.output, /inside-value/);
  // A built-in's definition lies in rt's own TypeScript library: shown.
  const builtin = await callTool(w, "lsp", { operation: "definition", path: "c.ts", line: 2, symbol: "console" });
  assert.match(builtin.output, /lib\.dom\.d\.ts/);
});

/** A directory outside the system's bin directories holding the stand-in server under `name`. */
function standInOnPath(name: string): string {
  const bin = tempTree({}, "rt-user-bin-");
  const script = path.join(REPO, "test/fixtures/lsp/stand-in-server.cjs");
  fs.writeFileSync(
    path.join(bin, name),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)} "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}

test("gopls found on the user's PATH only; toolchain selection pinned in an untrusted folder; workspace_symbols without a path", async () => {
  const bin = standInOnPath("gopls");
  const root = tempTree({
    "go.mod": "module example.com/m\n\ngo 1.22\n\ntoolchain go1.99.0\n",
    "main.go": "package main\n\nfunc main() { BAD }\n",
    ".python-version": "3.99.0\n",
    // Volta's pin, and a project hook whose `bin` command Volta would run to find that version's download.
    "package.json": JSON.stringify({ name: "m", volta: { node: "99.0.0" } }),
    ".volta/hooks.json": JSON.stringify({ node: { distro: { bin: "./fetch-node.sh" } } }),
  });
  // Servers are looked up on the PATH rt started with, so rt runs as a process started with the stand-in's directory on it.
  const saved = process.env.PATH ?? "/usr/bin:/bin";
  const env = {
    PATH: `${bin}:${saved}`,
    XDG_CONFIG_HOME: path.join(root, ".no-user-config"),
    GOTOOLCHAIN: undefined,
    RUSTUP_TOOLCHAIN: undefined,
    PYENV_VERSION: undefined,
    VOLTA_BYPASS: undefined,
  };
  const diag = await rt(["lsp", "diagnostics", "main.go"], { cwd: root, env });
  assert.match(
    diag.stdout + diag.stderr,
    /main\.go:3:15: error: BAD here \(GOTOOLCHAIN=local RUSTUP_TOOLCHAIN=\S+ PYENV_VERSION=(?!3\.99\.0)\S+ VOLTA_BYPASS=1\)/,
  );
  // Trusted, the folder's choices are the user's: nothing is pinned.
  const trustedRoot = tempTree({ "main.go": "package main\n\nfunc main() { BAD }\n" });
  const trustedEnv = { ...env, XDG_CONFIG_HOME: path.join(trustedRoot, ".no-user-config") };
  assert.equal((await rt(["trust"], { cwd: trustedRoot, env: trustedEnv })).code, 0);
  const trusted = await rt(["lsp", "diagnostics", "main.go"], { cwd: trustedRoot, env: trustedEnv });
  assert.match(
    trusted.stdout,
    /BAD here \(GOTOOLCHAIN=\(unset\) RUSTUP_TOOLCHAIN=\(unset\) .*VOLTA_BYPASS=\(unset\)\)/,
  );
  const symbols = await rt(["lsp", "workspace_symbols", "main"], { cwd: root, env });
  assert.equal(symbols.code, 0, symbols.stderr);
  assert.match(symbols.stdout, /main\.go:1-1: function mainInside/);
  assert.doesNotMatch(symbols.stdout, /passwd/);
  assert.match(symbols.stdout, /1 symbol in files outside the workspace not shown/);
  // Not on the PATH: the message says where rt looked.
  const missing = await rt(["lsp", "diagnostics", "main.go"], { cwd: root, env: { ...env, PATH: saved } });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /gopls is not on the PATH rt started with/);
});

test("a planted rust-toolchain.toml (path = /proc/self/cwd/tc) does not make the rustup proxy run the repository's program", async (t) => {
  const cargoBin = path.join(process.env.HOME ?? "/root", ".cargo", "bin");
  if (!fs.existsSync(path.join(cargoBin, "rust-analyzer")))
    return t.skip("no rustup proxy for rust-analyzer on this machine");
  const root = tempTree({
    "rust-toolchain.toml": '[toolchain]\npath = "/proc/self/cwd/tc"\n',
    "src/main.rs": "fn main() {}\n",
  });
  const marker = path.join(root, "ran-planted-program");
  fs.mkdirSync(path.join(root, "tc/bin"), { recursive: true });
  fs.writeFileSync(path.join(root, "tc/bin/rust-analyzer"), `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`, {
    mode: 0o755,
  });
  const env = {
    PATH: `${cargoBin}:${process.env.PATH}`,
    XDG_CONFIG_HOME: path.join(root, ".no-user-config"),
    RUSTUP_TOOLCHAIN: undefined,
    RT_LSP_REQUEST_TIMEOUT_MS: "10000",
  };
  await rt(["lsp", "diagnostics", "src/main.rs"], { cwd: root, env });
  assert.equal(fs.existsSync(marker), false, "the program committed in the repository ran");
});

test("lsp.edit_diagnostics on: a one-shot rt edit starts the file's server and reports the error it introduced; a slow server is said to be not ready", async () => {
  const bin = standInOnPath("gopls");
  const root = tempTree({
    "go.mod": "module example.com/m\n\ngo 1.22\n",
    "main.go": "package main\n\nfunc main() {}\n",
  });
  const config = path.join(root, ".user-config");
  fs.mkdirSync(path.join(config, "rt"), { recursive: true });
  fs.writeFileSync(path.join(config, "rt", "config.json"), JSON.stringify({ lsp: { edit_diagnostics: true } }));
  const env = { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, XDG_CONFIG_HOME: config };
  const r = await rt(["edit", "main.go", "3", "3"], { cwd: root, env, input: "func main() { BAD }\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /go language server: this edit introduced 1 error:\nmain\.go:3:15: error: BAD here/);
  // A server that takes 30 s to start, with lsp.edit_diagnostics_start_timeout_ms at 1.5 s (10 s by default).
  const quick = path.join(root, ".user-config-quick");
  fs.mkdirSync(path.join(quick, "rt"), { recursive: true });
  fs.writeFileSync(
    path.join(quick, "rt", "config.json"),
    JSON.stringify({ lsp: { edit_diagnostics: true, edit_diagnostics_start_timeout_ms: 1500 } }),
  );
  const t0 = Date.now();
  const slow = await rt(["edit", "main.go", "3", "3"], {
    cwd: root,
    env: { ...env, XDG_CONFIG_HOME: quick, STAND_IN_INIT_DELAY_MS: "30000" },
    input: "func main() { BAD; BAD }\n",
  });
  assert.equal(slow.code, 0, slow.stderr);
  assert.match(slow.stdout, /the go language server was not ready within 1\.5 s; this edit's errors were not checked/);
  // rt said so and exited: it did not wait the 30 s the server takes to start.
  assert.ok(Date.now() - t0 < 25_000, `rt edit took ${Date.now() - t0} ms`);
  // Off (no configuration, the CLI's default): no server is started for an edit.
  const off = await rt(["edit", "main.go", "3", "3"], {
    cwd: root,
    env: { PATH: env.PATH, XDG_CONFIG_HOME: path.join(root, ".none") },
    input: "func main() { BAD }\n",
  });
  assert.doesNotMatch(off.stdout, /language server/);
});
