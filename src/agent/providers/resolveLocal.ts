// `--model local[/MODEL]` and `--model scripted/PATH.json`: the two providers that run in
// this process and need no server, resolved into the same ResolvedModel as the others.
import path from "node:path";
import type { ConfigFiles, RtConfig } from "../../base/config.js";
import { createLocalProvider } from "./local.js";
import {
  LocalModelError,
  parseLocalSettings,
  resolveLocalModel,
  type LocalModelRef,
  type LocalSettings,
} from "./localModels.js";
import { createScriptedProvider } from "./scripted.js";
import type { Provider } from "./types.js";

export const IN_PROCESS_PROVIDERS = ["local", "scripted"] as const;
export type InProcessProvider = (typeof IN_PROCESS_PROVIDERS)[number];

/** The in-process provider a model spec names ("local", "local/x", "scripted/x.json"), if any. */
export function inProcessProviderOf(spec: string | undefined): InProcessProvider | undefined {
  if (!spec) return undefined;
  const prefix = spec.includes("/") ? spec.slice(0, spec.indexOf("/")) : spec;
  return (IN_PROCESS_PROVIDERS as readonly string[]).includes(prefix) ? (prefix as InProcessProvider) : undefined;
}

export interface InProcessResolution {
  provider: Provider;
  providerName: InProcessProvider;
  model: string;
  label: string;
  target: string;
  /** local: which model and whether it must be downloaded first. */
  local?: { ref: LocalModelRef; settings: LocalSettings };
}

/** Resolves a local/scripted spec; throws LocalModelError (or Error) naming what is wrong. */
export function resolveInProcess(
  spec: string,
  config: RtConfig,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
  _files?: ConfigFiles,
): InProcessResolution {
  const kind = inProcessProviderOf(spec)!;
  const rest = spec.includes("/") ? spec.slice(spec.indexOf("/") + 1) : "";
  if (kind === "scripted") {
    if (!rest)
      throw new LocalModelError("--model scripted/PATH.json: name the script, e.g. --model scripted/./answers.json");
    const file = path.resolve(cwd, rest);
    return {
      provider: createScriptedProvider(file),
      providerName: "scripted",
      model: rest,
      label: `scripted/${rest}`,
      target: `the scripted model ${file}`,
    };
  }
  const settings = parseLocalSettings((config as Record<string, unknown>).local);
  const ref = resolveLocalModel(rest || undefined, settings, cwd, env);
  const provider = createLocalProvider({
    modelPath: ref.path,
    ...(settings.threads !== undefined ? { threads: settings.threads } : {}),
    ...(settings.gpu !== undefined ? { gpu: settings.gpu } : {}),
    ...(settings.context_size !== undefined ? { contextSize: settings.context_size } : {}),
    ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
    ...(settings.max_string_chars !== undefined ? { maxStringChars: settings.max_string_chars } : {}),
  });
  const model = ref.kind === "file" ? rest : ref.entry.name;
  return {
    provider,
    providerName: "local",
    model,
    label: `local/${model}`,
    target: `the local model ${ref.path}`,
    local: { ref, settings },
  };
}
