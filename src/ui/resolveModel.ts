// The faces' way to the provider: resolve `--model` (and --base-url,
// --api-key) with the environment and configuration (providers/resolve.ts),
// then check that the server answers and has the model (providers/reachability.ts).
// Every failure here is a SetupError: the CLI prints it and exits 2.
import type { Provider } from "../agent/providers/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { resolveModelForWorkspace, ModelChoiceError } from "../agent/providers/resolve.js";
import { checkReachable } from "../agent/providers/reachability.js";
import { ConfigError } from "../base/config.js";
import { ensureLocalModel } from "./localModelSetup.js";

export interface ResolvedModel {
  provider: Provider;
  /** The model name sent to the provider. */
  model: string;
  /** "provider/model". */
  label: string;
}

/** A problem with the command line, the configuration or the model server: exit 2 with this message. */
export class SetupError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "SetupError";
  }
}

export interface ModelChoice {
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** --yes: a local model that is not downloaded may be downloaded without asking. */
  yes?: boolean;
}

function resolveChoice(ws: Workspace, choice: ModelChoice) {
  try {
    return resolveModelForWorkspace(ws, choice);
  } catch (e) {
    if (e instanceof ModelChoiceError || e instanceof ConfigError) throw new SetupError(e.message);
    throw e;
  }
}

/** A local model named by catalogue name or hf: URI is downloaded first, with consent (localModelSetup.ts). */
async function readyLocal(
  ws: Workspace,
  resolved: ReturnType<typeof resolveChoice>,
  choice: ModelChoice,
  why?: string,
): Promise<void> {
  const ref = resolved.local?.ref;
  if (!ref || ref.kind === "file" || ref.downloaded) return;
  const r = await ensureLocalModel(ref.entry, { yes: choice.yes === true, env: ws.env, ...(why ? { why } : {}) });
  if (!r.ok) throw new SetupError(r.message, r.exitCode);
}

export async function resolveModel(ws: Workspace, choice: ModelChoice): Promise<ResolvedModel> {
  const resolved = resolveChoice(ws, choice);
  await readyLocal(ws, resolved, choice);
  const reach = await checkReachable(resolved, { env: ws.env });
  if (
    !reach.ok &&
    reach.reason === "unreachable" &&
    resolved.kind === "ollama" &&
    resolved.origins.model === "the default" &&
    !ws.env.ANTHROPIC_API_KEY &&
    !ws.env.OPENAI_API_KEY
  ) {
    // The zero-setup path: nothing configured, no Ollama, no key: rt's own local model.
    const local = resolveChoice(ws, { ...choice, model: "local" });
    const why = `No model is configured, nothing answers at ${resolved.target} and no API key is set`;
    await readyLocal(ws, local, choice, why);
    if (local.local?.ref.kind !== "file" && local.local?.ref.downloaded)
      process.stderr.write(`rt: no model configured and no Ollama running: using the local model ${local.label}\n`);
    return { provider: local.provider, model: local.model!, label: local.label };
  }
  if (!reach.ok) throw new SetupError(reach.message.replace(/^rt: /, ""));
  const r = reach.resolved;
  if (r.model === undefined)
    throw new SetupError(`no model chosen for ${r.target}; name one with --model ${r.providerName}/MODEL`);
  return { provider: r.provider, model: r.model, label: r.label };
}
