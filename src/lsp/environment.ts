// The environment a language server runs with. Toolchain managers pick a program by files of the
// folder they run in: rustup's rust-toolchain.toml (whose `path = "/proc/self/cwd/tc"` makes the
// rust-analyzer proxy run tc/bin/rust-analyzer, a program the repository committed), pyenv's
// .python-version, rbenv's .ruby-version, nodenv's .node-version, goenv's .go-version, asdf's
// and mise's .tool-versions, Go's go.mod / go.work `toolchain` lines, and Volta's package.json
// "volta" field (with its `extends` and a project's .volta/hooks.json, whose `bin` hooks are
// commands Volta runs to find a download; a Volta shim of a global package also runs the
// project's own node_modules/.bin copy). In a folder the user has not trusted, each is pinned by
// the environment variable that its manager documents as winning over those files: the user's
// own default (from the manager's global settings), or "system"; Volta has no such pin, and its
// VOLTA_BYPASS makes its shims skip all project detection and run the tool from the PATH without
// Volta's directories. A variable the user set already stays as it is: it is the user's choice,
// not the folder's.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function firstLine(file: string): string | undefined {
  try {
    const line = fs.readFileSync(file, "utf8").split("\n")[0]?.trim();
    return line ? line : undefined;
  } catch {
    return undefined;
  }
}

/** rustup's default toolchain from its settings.toml (`default_toolchain = "stable-..."`). */
function rustupDefault(env: NodeJS.ProcessEnv, home: string): string {
  const dir = env.RUSTUP_HOME || path.join(home, ".rustup");
  try {
    const m = /^\s*default_toolchain\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(dir, "settings.toml"), "utf8"));
    if (m) return m[1];
  } catch {
    /* no rustup settings: its usual default */
  }
  return "stable";
}

/** asdf's tool names for the languages rt's servers run, with the user's global version of each. */
const ASDF_TOOLS = ["nodejs", "python", "golang", "rust", "ruby", "java"];
/** mise's names (`MISE_<TOOL>_VERSION`). */
const MISE_TOOLS: Record<string, string> = {
  nodejs: "NODE",
  python: "PYTHON",
  golang: "GO",
  rust: "RUST",
  ruby: "RUBY",
  java: "JAVA",
};

function globalToolVersions(home: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const line of fs.readFileSync(path.join(home, ".tool-versions"), "utf8").split("\n")) {
      const [tool, version] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (tool && version) out.set(tool, version);
    }
  } catch {
    /* none */
  }
  return out;
}

/**
 * The variables that pin every toolchain manager to the user's own choice, for a server started
 * in a folder that is not trusted (those the user set already are left out).
 */
export function toolchainPins(env: NodeJS.ProcessEnv): Record<string, string> {
  const home = env.HOME || os.homedir();
  const pins: Record<string, string> = {
    RUSTUP_TOOLCHAIN: rustupDefault(env, home),
    // Only the Go toolchain installed: a go.mod or go.work `toolchain` line downloads and runs no other.
    GOTOOLCHAIN: "local",
    PYENV_VERSION: firstLine(path.join(env.PYENV_ROOT || path.join(home, ".pyenv"), "version")) ?? "system",
    RBENV_VERSION: firstLine(path.join(env.RBENV_ROOT || path.join(home, ".rbenv"), "version")) ?? "system",
    NODENV_VERSION: firstLine(path.join(env.NODENV_ROOT || path.join(home, ".nodenv"), "version")) ?? "system",
    GOENV_VERSION: firstLine(path.join(env.GOENV_ROOT || path.join(home, ".goenv"), "version")) ?? "system",
    VOLTA_BYPASS: "1",
  };
  const global = globalToolVersions(home);
  for (const tool of ASDF_TOOLS) {
    const version = global.get(tool) ?? "system";
    pins[`ASDF_${tool.toUpperCase()}_VERSION`] = version;
    pins[`MISE_${MISE_TOOLS[tool]}_VERSION`] = version;
  }
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(pins)) {
    const own = env[k];
    // GOTOOLCHAIN is pinned even when set: "auto" (Go's default) is what downloads the folder's choice.
    if (own === undefined || own === "" || (k === "GOTOOLCHAIN" && own !== "local")) kept[k] = v;
  }
  return kept;
}
