// The faces' way to the provider: resolve `--model` (and --base-url,
// --api-key) with the environment and configuration (providers/resolve.ts),
// then check that the server answers and has the model (providers/reachability.ts).
// Every failure here is a SetupError: the CLI prints it and exits 2.
import type { Provider } from "../agent/providers/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { resolveModelForWorkspace, ModelChoiceError } from "../agent/providers/resolve.js";
import { checkReachable } from "../agent/providers/reachability.js";
import { ConfigError } from "../config.js";

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
}

export async function resolveModel(ws: Workspace, choice: ModelChoice): Promise<ResolvedModel> {
  let resolved;
  try {
    resolved = resolveModelForWorkspace(ws, choice);
  } catch (e) {
    if (e instanceof ModelChoiceError || e instanceof ConfigError) throw new SetupError(e.message);
    throw e;
  }
  const reach = await checkReachable(resolved, { env: ws.env });
  if (!reach.ok) throw new SetupError(reach.message.replace(/^rt: /, ""));
  const r = reach.resolved;
  if (r.model === undefined) throw new SetupError(`no model chosen for ${r.target}; name one with --model ${r.providerName}/MODEL`);
  return { provider: r.provider, model: r.model, label: r.label };
}
