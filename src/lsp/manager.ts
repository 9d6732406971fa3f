// The language servers of one workspace: started on first use per server
// (language), shut down after being idle, restarted after a crash (a few
// times a minute at most), stopped when rt exits. In the safe-read-only
// profile (and with --sandbox) each runs inside the read-only sandbox, the
// one the shell uses (servers only read); where that sandbox is unavailable
// the lsp tool refuses and says why, it never runs a server outside it.
import type { Workspace } from "../workspace/workspace.js";
import { ToolError } from "../base/errors.js";
import { loadConfigDetailed, ConfigError, type RtConfig } from "../base/config.js";
import { LspClient, type ServerLaunch } from "./client.js";
import { markLspActive } from "./active.js";
import { toolchainPins } from "./environment.js";
import { serverPath, serverSpecs, specFor, type ServerSpec } from "./servers.js";
import {
  EDIT_DIAGNOSTICS_START_TIMEOUT_MS,
  LSP_IDLE_TIMEOUT_MS,
  LSP_MAX_RESTARTS_PER_MINUTE,
  LSP_REQUEST_TIMEOUT_MS,
} from "../base/limits.js";

export interface ServerHandle {
  client: LspClient;
  spec: ServerSpec;
  /** This call started the server (first use, or a restart after a crash). */
  started: boolean;
  /** It was started again after the previous one crashed. */
  restarted: boolean;
}

const managers = new WeakMap<Workspace, LspManager>();
const allManagers = new Set<LspManager>();
let exitHookInstalled = false;

/** The workspace's servers (one manager per Workspace object). */
export function lspManager(workspace: Workspace): LspManager {
  let m = managers.get(workspace);
  if (!m) {
    m = new LspManager(workspace);
    managers.set(workspace, m);
    allManagers.add(m);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      // A server must not outlive rt: killed on exit (stop() is async; exit handlers are not).
      process.on("exit", () => {
        for (const mm of allManagers) mm.killAll();
      });
    }
  }
  return m;
}

/** The running manager of a workspace, if the lsp tool was ever used in it (the edit hook must not start one). */
export function existingLspManager(workspace: Workspace): LspManager | undefined {
  return managers.get(workspace);
}

export class LspManager {
  private servers = new Map<
    string,
    {
      spec: ServerSpec;
      client?: LspClient;
      starting?: Promise<LspClient>;
      pending?: LspClient;
      crashes: number[];
      crashed?: string;
    }
  >();

  /** Stops rt's process from waiting for the server of `file` while it still starts (it starts on for a later call). */
  detachStarting(file: string): void {
    const spec = this.specFor(file);
    const entry = spec && this.servers.get(spec.name);
    entry?.pending?.detach();
  }
  private idleTimer: NodeJS.Timeout | undefined;
  private configCache: RtConfig | undefined;
  private trustedCache = false;

  constructor(readonly workspace: Workspace) {}

  private config(): RtConfig {
    if (!this.configCache) {
      try {
        const loaded = loadConfigDetailed(this.workspace, { notice: false });
        this.configCache = loaded.config;
        this.trustedCache = loaded.trust.state === "trusted";
      } catch (e) {
        if (e instanceof ConfigError) throw new ToolError(`configuration error: ${e.message}`);
        throw e;
      }
    }
    return this.configCache;
  }

  get requestTimeoutMs(): number {
    const env = Number(this.workspace.env.RT_LSP_REQUEST_TIMEOUT_MS);
    return Number.isSafeInteger(env) && env > 0
      ? env
      : (this.config().lsp?.request_timeout_ms ?? LSP_REQUEST_TIMEOUT_MS);
  }

  get idleTimeoutMs(): number {
    const env = Number(this.workspace.env.RT_LSP_IDLE_TIMEOUT_MS);
    return Number.isSafeInteger(env) && env > 0 ? env : (this.config().lsp?.idle_timeout_ms ?? LSP_IDLE_TIMEOUT_MS);
  }

  /** How long an edit waits for its file's server to start (`lsp.edit_diagnostics_start_timeout_ms`). */
  get editStartTimeoutMs(): number {
    try {
      return this.config().lsp?.edit_diagnostics_start_timeout_ms ?? EDIT_DIAGNOSTICS_START_TIMEOUT_MS;
    } catch {
      return EDIT_DIAGNOSTICS_START_TIMEOUT_MS;
    }
  }

  /** Whether edits in this workspace add the diagnostics they introduced (`lsp.edit_diagnostics`; the face's default otherwise). */
  editDiagnostics(faceDefault: boolean): boolean {
    try {
      return this.config().lsp?.edit_diagnostics ?? faceDefault;
    } catch {
      return false;
    }
  }

  specFor(file: string): ServerSpec | undefined {
    return specFor(serverSpecs(this.config(), this.workspace.root), file);
  }

  supportedExtensions(): string[] {
    return [...new Set(serverSpecs(this.config(), this.workspace.root).flatMap((s) => s.extensions))];
  }

  /** The running server for `file`, if one is (nothing is started). */
  runningFor(file: string): { client: LspClient; spec: ServerSpec } | undefined {
    const spec = this.specFor(file);
    const entry = spec && this.servers.get(spec.name);
    return spec && entry?.client && !entry.client.dead ? { client: entry.client, spec } : undefined;
  }

  /** Every running server. */
  running(): Array<{ name: string; client: LspClient; spec: ServerSpec }> {
    return [...this.servers]
      .filter(([, e]) => e.client && !e.client.dead)
      .map(([name, e]) => ({ name, client: e.client!, spec: e.spec }));
  }

  /** The server for `file`, started if needed. */
  async serverFor(file: string): Promise<ServerHandle> {
    const spec = this.specFor(file);
    if (!spec)
      throw new ToolError(
        `no language server for ${file}: rt has servers for ${this.supportedExtensions().join(" ")}; configure one in lsp.servers (command, args, extensions)`,
      );
    let entry = this.servers.get(spec.name);
    if (!entry) {
      entry = { spec, crashes: [] };
      this.servers.set(spec.name, entry);
    }
    if (entry.client && !entry.client.dead) {
      entry.client.lastUsed = performance.now();
      return { client: entry.client, spec, started: false, restarted: false };
    }
    if (entry.starting) return { client: await entry.starting, spec, started: false, restarted: false };
    // A server that stopped for being idle starts again quietly; one that crashed counts as a restart.
    const restarted = entry.client !== undefined && !this.stopping.has(entry.client);
    if (restarted) {
      const now = Date.now();
      entry.crashes = entry.crashes.filter((t) => now - t < 60_000);
      if (entry.crashes.length > LSP_MAX_RESTARTS_PER_MINUTE) {
        throw new ToolError(
          `the ${spec.name} language server crashed ${entry.crashes.length} times in the last minute (last: ${entry.crashed}); rt stopped restarting it for now`,
        );
      }
    }
    markLspActive();
    const starting = this.start(spec, (c) => {
      entry.pending = c;
    });
    entry.starting = starting;
    try {
      entry.client = await starting;
    } finally {
      entry.starting = undefined;
      entry.pending = undefined;
    }
    const client = entry.client;
    const e = entry;
    client.onExit((why) => {
      if (this.stopping.has(client)) return;
      e.crashes.push(Date.now());
      e.crashed = why;
    });
    this.armIdleTimer();
    return { client, spec, started: true, restarted };
  }

  private stopping = new WeakSet<LspClient>();

  /**
   * The environment servers run with: PATH without the workspace's directories, and in a folder
   * the user has not trusted, every toolchain manager pinned to the user's own choice
   * (environment.ts), so that no file of the repository picks the program that runs.
   */
  serverEnv(): NodeJS.ProcessEnv {
    this.config();
    const env: NodeJS.ProcessEnv = { ...this.workspace.env, PATH: serverPath(this.workspace.root) };
    return this.trustedCache ? env : { ...env, ...toolchainPins(this.workspace.env) };
  }

  private async start(spec: ServerSpec, onCreate?: (client: LspClient) => void): Promise<LspClient> {
    const resolved = spec.resolve(this.workspace.root);
    if ("reason" in resolved) throw new ToolError(`cannot start the ${spec.name} language server: ${resolved.reason}`);
    const launch: ServerLaunch = {
      name: spec.name,
      command: resolved.command,
      args: resolved.args,
      initializationOptions: resolved.initializationOptions,
      env: this.serverEnv(),
      ...(onCreate ? { onCreate } : {}),
    };
    const { sandboxPolicy } = await import("../shell/mode.js");
    const policy = sandboxPolicy(this.workspace);
    if (policy.on) {
      const { probeSandbox, bwrapArgs, sandboxSeccomp } = await import("../shell/sandbox.js");
      const probe = await probeSandbox(this.workspace.env, this.workspace.root);
      if (!probe.available) {
        throw new ToolError(
          `language servers run inside the read-only sandbox here (${policy.why}), and it is not available: ${probe.reason} rt does not run them outside it.`,
          { error_type: "denied", sandbox_unavailable: true },
        );
      }
      const filter = sandboxSeccomp();
      const sandbox = {
        bwrap: probe.bwrap,
        strategy: probe.strategy,
        root: this.workspace.root,
        cwd: this.workspace.root,
        allowNet: false,
        features: probe.features,
      };
      launch.wrap = (command, args) => ({
        command: probe.bwrap,
        args: [...bwrapArgs(sandbox, filter ? 3 : undefined), "--", command, ...args],
        ...(filter ? { extraStdio: filter } : {}),
      });
    }
    const client = await LspClient.start(launch, this.workspace.root, this.requestTimeoutMs).catch((e: unknown) => {
      if (e instanceof ToolError) throw new ToolError(`the ${spec.name} language server did not start: ${e.message}`);
      throw e;
    });
    // rt's own process may end while a server runs (the CLI after one call): the exit hook kills it.
    client.unref();
    return client;
  }

  private armIdleTimer(): void {
    if (this.idleTimer) return;
    const idle = this.idleTimeoutMs;
    this.idleTimer = setInterval(
      () => {
        const now = performance.now();
        for (const [, e] of this.servers) {
          if (e.client && !e.client.dead && e.client.busy === 0 && now - e.client.lastUsed >= idle) {
            this.stopping.add(e.client);
            void e.client.stop();
          }
        }
        if (this.running().length === 0) {
          clearInterval(this.idleTimer);
          this.idleTimer = undefined;
        }
      },
      Math.max(50, Math.min(idle / 4, 30_000)),
    );
    this.idleTimer.unref();
  }

  /** Stops every server (shutdown, then a kill for those that linger). */
  async stopAll(): Promise<void> {
    const all = [...this.servers.values()]
      .map((e) => e.client)
      .filter((c): c is LspClient => c !== undefined && !c.dead);
    for (const c of all) this.stopping.add(c);
    await Promise.all(all.map((c) => c.stop()));
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = undefined;
  }

  killAll(): void {
    for (const e of this.servers.values()) {
      if (e.client && !e.client.dead) e.client.kill();
      // A server still starting (detached from a one-shot edit that stopped waiting) must not outlive rt either.
      if (e.pending && e.pending.pid !== undefined) e.pending.kill();
    }
  }
}
