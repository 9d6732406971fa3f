// What trusting a folder lets it make rt run or change, for `rt trust` and the
// trust question to show before the user accepts: each MCP server's command or
// URL and the environment variables it would receive, each custom tool's
// command and read-only claim, hooks, subagent types, custom commands and their
// allowed-tools, language servers; then every file the trust pins and what
// changed since the folder was last trusted. The files are read here only to
// be shown (never run, registered or offered).
import path from "node:path";
import { escapeInvisible, formatChanges, isPlainObject, shellQuotePath } from "../configTrust.js";
import { pinExtensionFiles, diffPins, TOO_MANY_KEY, type PinChange } from "../extensionPins.js";
import type { ProjectInspection } from "../config.js";
import { trustRecordFor } from "../trustStore.js";
import { readRegularFile } from "../extensions/definitionFiles.js";
import { projectToolsForReview } from "../extensions/customTools.js";
import { projectCommandsForReview } from "../extensions/slashCommands.js";
import { projectAgentsForReview } from "../extensions/agentDefinitions.js";
import { parseHooks } from "../extensions/hooks.js";
import { variablesIn } from "../mcpClient/config.js";
import { TRUST_PINNED_SHOWN } from "../limits.js";

export interface TrustInventory {
  /** One line per thing the folder would make rt run or change ("  MCP server x (.mcp.json): runs ..."). */
  lines: string[];
  /** Problems reading the files (shown too: a definition rt cannot read is not used). */
  problems: string[];
  /** Every pinned file, relative to the root. */
  pinned: string[];
  /** What differs from the files pinned when the folder was last trusted (empty when never trusted). */
  changes: PinChange[];
  /** Whether the folder was trusted before (the changes are against that trust). */
  wasTrusted: boolean;
}

const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const show = (s: string, n = 300) => escapeInvisible(cut(s, n));
const argv = (parts: readonly string[]) => show(parts.map((p) => shellQuotePath(p)).join(" "));

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "?";
  }
}

/** Lines for the servers of one {"mcpServers": {...}} object, raw (the ${VAR}s as written, with which ones would expand). */
function mcpLines(data: unknown, where: string, allowed: ReadonlySet<string>): string[] {
  const servers = isPlainObject(data) ? (data.mcpServers ?? data.mcp_servers) : undefined;
  if (!isPlainObject(servers)) return [];
  const out: string[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    if (!isPlainObject(raw)) {
      out.push(`  MCP server ${show(name, 64)} (${where}): not an object; not used`);
      continue;
    }
    if (raw.disabled === true) continue;
    const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
    const record = (v: unknown): Record<string, string> =>
      isPlainObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {};
    let what: string;
    const values: string[] = [];
    if (typeof raw.url === "string") {
      const headers = record(raw.headers);
      values.push(raw.url, ...Object.values(headers));
      const names = Object.keys(headers);
      what = `connects to ${show(raw.url)} (host: ${escapeInvisible(hostOf(raw.url))})${names.length ? `; sends headers ${show(names.join(", "))}` : ""}`;
    } else {
      const command = typeof raw.command === "string" ? raw.command : "";
      const args = strings(raw.args);
      const env = record(raw.env);
      values.push(command, ...args, ...Object.values(env));
      const envNames = Object.keys(env);
      what = `runs ${argv([command, ...args])}${envNames.length ? `; its environment adds ${show(envNames.join(", "))}` : ""}`;
    }
    const vars = [...new Set(values.flatMap(variablesIn))].sort();
    const given = vars.filter((v) => allowed.has(v));
    const withheld = vars.filter((v) => !allowed.has(v));
    const varText = [
      given.length ? `receives your ${given.join(", ")}` : "",
      withheld.length ? `${withheld.map((v) => `\${${v}}`).join(", ")} withheld (not in mcp_env_allowlist)` : "",
    ]
      .filter(Boolean)
      .join("; ");
    out.push(`  MCP server ${show(name, 64)} (${where}): ${what}${varText ? `; ${varText}` : ""}`);
  }
  return out;
}

/** Everything trusting `inspection`'s folder would enable, and what changed since it was last trusted. */
export async function trustInventory(inspection: ProjectInspection, env: NodeJS.ProcessEnv): Promise<TrustInventory> {
  const root = inspection.trust.root;
  const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
  const lines: string[] = [];
  const problems: string[] = [];
  const list = inspection.user.mcp_env_allowlist;
  const allowed = new Set(Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : []);

  lines.push(...mcpLines(inspection.project, ".rt/config.json", allowed));
  try {
    const text = readRegularFile(path.join(root, ".mcp.json"), true);
    try {
      lines.push(...mcpLines(JSON.parse(text), ".mcp.json", allowed));
    } catch (e) {
      problems.push(`.mcp.json: not valid JSON (${(e as Error).message})`);
    }
  } catch (e) {
    if (!/ENOENT/.test((e as Error).message)) problems.push(`.mcp.json: ${(e as Error).message}`);
  }

  const tools = await projectToolsForReview(root);
  for (const d of tools.definitions) {
    const claim = d.read_only ? "claims read-only: runs only in the read-only sandbox" : "a writer: each call asks (as a command does)";
    lines.push(`  tool ${d.name} (${rel(d.file)}): runs ${argv(d.command)}; ${claim}`);
  }
  for (const p of tools.problems) problems.push(`${rel(p.file)}: ${p.field ? `${p.field}: ` : ""}${show(p.message)}`);

  const hooks = parseHooks(inspection.project.hooks);
  for (const [event, groups] of Object.entries(hooks.config)) {
    for (const g of groups ?? []) {
      for (const h of g.hooks) lines.push(`  hook ${event}${g.matcher ? ` [${show(g.matcher, 80)}]` : ""} (.rt/config.json): runs bash -c ${show(JSON.stringify(h.command))}`);
    }
  }

  const agents = await projectAgentsForReview(root);
  for (const a of agents.agents) {
    const tools = a.tools ? `tools ${show(a.tools.join(", "))}` : "every tool";
    lines.push(`  agent ${show(a.name, 64)} (${rel(a.file!)}): ${tools}${a.model ? `; model ${show(a.model, 100)}` : ""}`);
  }
  for (const p of agents.problems) problems.push(`${rel(p.file)}: ${show(p.message)}`);

  const commands = await projectCommandsForReview(root);
  for (const c of commands.commands) {
    const allowedTools = c.allowedTools.length ? `allowed-tools ${show(c.allowedTools.join(", "))} (run without a question during its turn)` : "no allowed-tools";
    lines.push(`  command /${show(c.name, 64)} (${rel(c.file)}): ${allowedTools}`);
  }
  for (const p of commands.problems) problems.push(`${rel(p.file)}: ${show(p.message)}`);

  const lsp = isPlainObject(inspection.project.lsp) ? inspection.project.lsp.servers : undefined;
  if (isPlainObject(lsp)) {
    for (const [name, s] of Object.entries(lsp)) {
      if (!isPlainObject(s)) continue;
      const command = typeof s.command === "string" ? s.command : "";
      const args = Array.isArray(s.args) ? s.args.filter((x): x is string => typeof x === "string") : [];
      const exts = Array.isArray(s.extensions) ? s.extensions.join(" ") : "";
      lines.push(`  language server ${show(name, 64)} (.rt/config.json): runs ${argv([command, ...args])} for ${show(exts, 100)}`);
    }
  }
  const web = isPlainObject(inspection.project.web) ? inspection.project.web : undefined;
  if (web) {
    for (const key of ["allowed_domains", "allow_private_addresses", "search"]) {
      if (web[key] !== undefined) lines.push(`  web.${key} (.rt/config.json): ${show(JSON.stringify(web[key]), 200)}`);
    }
  }

  const pins = pinExtensionFiles(root);
  let record;
  try {
    record = trustRecordFor(root, env);
  } catch {
    record = undefined;
  }
  const changes = record ? diffPins(record.extension_files ?? {}, pins) : [];
  if (record && record.config_sha256 !== inspection.trust.digest) changes.unshift({ file: ".rt/config.json", change: "edited" });
  return { lines, problems, pinned: Object.keys(pins).filter((k) => k !== TOO_MANY_KEY), changes, wasTrusted: record !== undefined };
}

/** The inventory as text for a person: what changed, what would run, what is pinned. */
export function formatInventory(inv: TrustInventory): string {
  let out = "";
  if (inv.changes.length) out += `Changed since you last trusted it: ${formatChanges(inv.changes)}\n`;
  if (inv.lines.length) out += `What it makes rt run or use:\n${inv.lines.join("\n")}\n`;
  if (inv.problems.length) out += `Not used (cannot be read as a definition):\n${inv.problems.map((p) => `  ${p}`).join("\n")}\n`;
  if (inv.pinned.length) {
    const shown = inv.pinned.slice(0, TRUST_PINNED_SHOWN).map((f) => escapeInvisible(f));
    const more = inv.pinned.length - shown.length;
    out += `Extension files pinned (${inv.pinned.length}): ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}\n`;
  }
  return out;
}
