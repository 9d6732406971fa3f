// The `local` provider's models: a small catalogue of GGUF coding models known to call
// tools, the user's own entries (`local.models` in the configuration), where downloaded
// models live (the user's cache directory), and what `--model local/...` names: a
// catalogue name, a path to a GGUF file, or an `hf:` URI.
//
// Nothing here loads node-llama-cpp or touches the network.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { LOCAL_LARGE_MODEL_MIN_MEMORY, LOCAL_MEDIUM_MODEL_MIN_MEMORY } from "../../base/limits.js";

export interface CatalogueEntry {
  name: string;
  /** `hf:OWNER/REPO/FILE.gguf` or an http(s) URL. */
  source: string;
  /** Bytes, as the host reports them (approximate for the built-in entries: see docs/local-models.md). */
  size?: number;
  /** Lowercase hex SHA-256 of the file; a download that does not match is refused. */
  sha256?: string;
  description?: string;
  /** Where the entry came from: rt's catalogue or the user's configuration. */
  origin: "built-in" | "configuration";
}

const GB = 1_000_000_000;

/**
 * Built-in entries. The sizes are the files' sizes on Hugging Face, rounded; no SHA-256 is
 * listed because none could be checked against the published files from this machine
 * (no access to huggingface.co): a user entry with `sha256` adds the check.
 */
export const BUILTIN_CATALOGUE: readonly CatalogueEntry[] = [
  {
    name: "qwen2.5-coder-1.5b",
    source: "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size: 1.12 * GB,
    description: "Qwen2.5-Coder 1.5B Instruct, Q4_K_M: small and quick, for machines under 8 GB",
    origin: "built-in",
  },
  {
    name: "qwen3-4b",
    source: "hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf",
    size: 2.5 * GB,
    description: "Qwen3 4B, Q4_K_M: tool calling, for 8-16 GB",
    origin: "built-in",
  },
  {
    name: "qwen2.5-coder-7b",
    source: "hf:Qwen/Qwen2.5-Coder-7B-Instruct-GGUF/qwen2.5-coder-7b-instruct-q4_k_m.gguf",
    size: 4.68 * GB,
    description: "Qwen2.5-Coder 7B Instruct, Q4_K_M: code, for 16 GB and more",
    origin: "built-in",
  },
  {
    name: "qwen3-8b",
    source: "hf:Qwen/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf",
    size: 5.03 * GB,
    description: "Qwen3 8B, Q4_K_M: tool calling, for 16 GB and more",
    origin: "built-in",
  },
];

export const LocalModelEntrySchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "model names use letters, digits, _ . - (no slash)"),
    /** `hf:OWNER/REPO/FILE.gguf` or an http(s) URL. */
    url: z
      .string()
      .regex(/^(hf:[^/\s]+\/[^/\s]+\/\S+\.gguf|https?:\/\/\S+)$/i, "an hf:OWNER/REPO/FILE.gguf URI or an http(s) URL"),
    size: z.number().int().positive().optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "64 hex digits")
      .optional(),
    description: z.string().optional(),
  })
  .strict();

/** The `local` section of the configuration. */
export const LocalSettingsSchema = z
  .object({
    /** Extra catalogue entries (they win over built-in ones of the same name). */
    models: z.array(LocalModelEntrySchema).optional(),
    /** Threads for generation (default: the machine's physical cores). */
    threads: z.number().int().positive().max(1024).optional(),
    /** "auto" (default: a GPU when one is found), false (CPU only), or a backend. */
    gpu: z.union([z.literal(false), z.enum(["auto", "cuda", "vulkan", "metal"])]).optional(),
    /** Context size in tokens (default: as large as free memory allows, up to LOCAL_MAX_CONTEXT). */
    context_size: z.number().int().min(256).optional(),
    /** Caps every string of a tool call's arguments, in characters (default: none). */
    max_string_chars: z.number().int().positive().optional(),
    /** Seed of the sampler, for repeatable runs (default: random). */
    seed: z.number().int().nonnegative().optional(),
    /** The model `--model local` means when none is named (a catalogue name, a path or an hf: URI). */
    default_model: z.string().min(1).optional(),
  })
  .strict();
export type LocalSettings = z.infer<typeof LocalSettingsSchema>;

/** Reads `local` from the configuration; throws naming the key that is wrong. */
export function parseLocalSettings(raw: unknown): LocalSettings {
  const r = LocalSettingsSchema.safeParse(raw ?? {});
  if (!r.success) {
    const what = r.error.issues.map((i) => `local.${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`configuration: ${what}`);
  }
  return r.data;
}

/** The catalogue: the user's entries, then the built-in ones they do not replace. */
export function catalogue(settings: LocalSettings): CatalogueEntry[] {
  const mine: CatalogueEntry[] = (settings.models ?? []).map((m) => ({
    name: m.name,
    source: m.url,
    ...(m.size !== undefined ? { size: m.size } : {}),
    ...(m.sha256 ? { sha256: m.sha256.toLowerCase() } : {}),
    ...(m.description ? { description: m.description } : {}),
    origin: "configuration",
  }));
  return [...mine, ...BUILTIN_CATALOGUE.filter((b) => !mine.some((m) => m.name === b.name))];
}

/** The built-in model for a machine with `totalMemory` bytes. */
export function defaultModelName(totalMemory = os.totalmem()): string {
  if (totalMemory >= LOCAL_LARGE_MODEL_MIN_MEMORY) return "qwen2.5-coder-7b";
  if (totalMemory >= LOCAL_MEDIUM_MODEL_MIN_MEMORY) return "qwen3-4b";
  return "qwen2.5-coder-1.5b";
}

/** Where downloaded models are kept: $XDG_CACHE_HOME/rt/models, ~/.cache/rt/models (macOS: ~/Library/Caches/rt/models). */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RT_MODELS_DIR) return path.resolve(env.RT_MODELS_DIR);
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, "rt", "models");
  const home = env.HOME || os.homedir();
  if (process.platform === "darwin") return path.join(home, "Library", "Caches", "rt", "models");
  if (process.platform === "win32" && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, "rt", "models");
  return path.join(home, ".cache", "rt", "models");
}

/** The file a catalogue entry is stored in (its name plus .gguf, inside modelsDir). */
export function modelFile(entry: Pick<CatalogueEntry, "name">, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(modelsDir(env), `${entry.name}.gguf`);
}

/** The download URL of a source: `hf:OWNER/REPO/FILE` through HF_ENDPOINT (default https://huggingface.co). */
export function sourceUrl(source: string, env: NodeJS.ProcessEnv = process.env): string {
  const m = /^hf:([^/]+)\/([^/]+)\/(.+)$/i.exec(source);
  if (!m) return source;
  const [, owner, repo, file] = m;
  const endpoint = (env.HF_ENDPOINT || "https://huggingface.co").replace(/\/+$/, "");
  return `${endpoint}/${owner}/${repo}/resolve/main/${file.split("/").map(encodeURIComponent).join("/")}`;
}

/** What `local/NAME` names. */
export type LocalModelRef =
  | { kind: "file"; path: string }
  | { kind: "catalogue"; entry: CatalogueEntry; path: string; downloaded: boolean }
  | { kind: "uri"; entry: CatalogueEntry; path: string; downloaded: boolean };

export class LocalModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LocalModelError";
  }
}

/** A name for an `hf:` URI or URL that is not in the catalogue: the file's name without .gguf, made safe. */
export function nameForSource(source: string): string {
  const file = source.split(/[/?#]/).filter(Boolean).at(-1) ?? "model";
  return (
    file
      .replace(/\.gguf$/i, "")
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .replace(/^[._-]+/, "") || "model"
  );
}

/**
 * Resolves the model part of `--model local/MODEL` (empty: the default). A path
 * (`./x.gguf`, `/abs/x.gguf`, `~/x.gguf` or any existing file) is relative to `cwd`.
 */
export function resolveLocalModel(
  spec: string | undefined,
  settings: LocalSettings,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): LocalModelRef {
  const name = spec || settings.default_model || defaultModelName();
  const list = catalogue(settings);
  const entry = list.find((e) => e.name === name);
  if (entry) {
    const file = modelFile(entry, env);
    return { kind: "catalogue", entry, path: file, downloaded: fs.existsSync(file) };
  }
  if (/^(hf:|https?:\/\/)/i.test(name)) {
    const e: CatalogueEntry = { name: nameForSource(name), source: name, origin: "configuration" };
    const file = modelFile(e, env);
    return { kind: "uri", entry: e, path: file, downloaded: fs.existsSync(file) };
  }
  const expanded = name.startsWith("~/") ? path.join(env.HOME || os.homedir(), name.slice(2)) : name;
  const abs = path.resolve(cwd, expanded);
  const looksLikePath = /^(\.{1,2}\/|\/|~\/)/.test(name) || /\.gguf$/i.test(name);
  if (looksLikePath || fs.existsSync(abs)) {
    if (!fs.existsSync(abs)) throw new LocalModelError(`local model file ${abs} does not exist (from "local/${name}")`);
    if (!fs.statSync(abs).isFile()) throw new LocalModelError(`local model ${abs} is not a file`);
    return { kind: "file", path: abs };
  }
  throw new LocalModelError(
    `unknown local model "${name}". Name one of ${list.map((e) => e.name).join(", ")} (rt models lists them), ` +
      `a GGUF file (--model local/./model.gguf, --model local//abs/path.gguf) or an hf:OWNER/REPO/FILE.gguf URI`,
  );
}

/** "1.1 GB". */
export function formatBytes(n: number): string {
  if (n >= GB) return `${(n / GB).toFixed(1)} GB`;
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)} kB`;
  return `${n} B`;
}
