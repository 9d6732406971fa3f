// What trusting a folder lets it make rt run or change, for `rt trust` and the
// trust question to show before the user accepts: each MCP server's command or
// URL and the environment variables it would receive, each custom tool's
// command and read-only claim, hooks, subagent types, custom commands and their
// allowed-tools, language servers; then every file the trust pins and what
// changed since the folder was last trusted. The files are read here only to
// be shown (never run, registered or offered), synchronously (rt trust is a
// plain function), and leniently: a definition is shown by the fields that say
// what would run even when the loader would reject another of its fields.
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { escapeInvisible, formatChanges, isPlainObject, shellQuotePath } from "../base/configTrust.js";
import { pinExtensionFiles, diffPins, TOO_MANY_KEY, type PinChange } from "../base/extensionPins.js";
import type { ProjectInspection } from "../base/config.js";
import { trustRecordFor } from "../base/trustStore.js";
import { readRegularFile } from "../extensions/definitionFiles.js";
import { readDefinitionDir } from "../extensions/definitionFiles.js";
import { rtToolName } from "../extensions/claudeToolNames.js";
import { parseHooks } from "../extensions/hooks.js";
import { PROJECT_CLAUDE_SETTINGS } from "../extensions/claudeSettings.js";
import { variablesIn } from "../mcpClient/config.js";
import { TRUST_PINNED_SHOWN } from "../base/limits.js";

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
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    const record = (v: unknown): Record<string, string> =>
      isPlainObject(v)
        ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
        : {};
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

/** A definition file's data (JSON for .json, YAML otherwise), or undefined when it does not parse. */
function parseData(file: string, text: string): unknown {
  try {
    return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { schema: "core", maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

/** The frontmatter of a command or agent file ({} without one), or undefined when it is not a mapping. */
function frontmatter(text: string): Record<string, unknown> | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return {};
  const data = parseData("frontmatter.yaml", m[1]) ?? undefined;
  return data === null ? {} : isPlainObject(data) ? data : undefined;
}

/** A list of tool names as command and agent files give them (a YAML list or "A, B"), in rt's names. */
function toolList(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(/,(?![^(]*\))/) : [];
  return items
    .map((t) => t.trim())
    .filter(Boolean)
    .map(rtToolName);
}

/** The .md files of a directory (and, for commands, of its subdirectories one level down: namespaces). */
function markdownFiles(dir: string, namespaces: boolean): Array<{ file: string; text: string }> {
  const files = readDefinitionDir(dir, [".md"], true).files;
  if (!namespaces) return files;
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.isDirectory()) files.push(...readDefinitionDir(path.join(dir, e.name), [".md"], true).files);
  }
  return files;
}

/** Everything trusting `inspection`'s folder would enable, and what changed since it was last trusted. */
export function trustInventory(inspection: ProjectInspection, env: NodeJS.ProcessEnv): TrustInventory {
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

  for (const f of readDefinitionDir(path.join(root, ".rt", "tools"), [".yaml", ".yml", ".json"], true).files) {
    const data = parseData(f.file, f.text);
    const name = isPlainObject(data) && typeof data.name === "string" ? data.name : undefined;
    const command =
      isPlainObject(data) && Array.isArray(data.command)
        ? data.command.filter((x): x is string => typeof x === "string")
        : undefined;
    if (!isPlainObject(data) || name === undefined || command === undefined) {
      problems.push(`${rel(f.file)}: not a tool definition (rt tools --check says why)`);
      continue;
    }
    const claim =
      data.read_only === true
        ? "claims read-only: runs only in the read-only sandbox"
        : "a writer: each call asks (as a command does)";
    lines.push(`  tool ${show(name, 64)} (${rel(f.file)}): runs ${argv(command)}; ${claim}`);
  }

  const hookSources: Array<{ label: string; value: unknown; claude: boolean }> = [
    { label: ".rt/config.json", value: inspection.project.hooks, claude: false },
  ];
  for (const rel of PROJECT_CLAUDE_SETTINGS) {
    try {
      const text = readRegularFile(path.join(root, ...rel.split("/")), true);
      let data: unknown;
      try {
        data = text.trim() === "" ? {} : JSON.parse(text);
      } catch (e) {
        problems.push(`${rel}: not valid JSON (${(e as Error).message})`);
        continue;
      }
      if (isPlainObject(data)) hookSources.push({ label: rel, value: data.hooks, claude: true });
      else problems.push(`${rel}: must hold a JSON object`);
    } catch (e) {
      if (!/ENOENT|ENOTDIR/.test((e as Error).message)) problems.push(`${rel}: ${(e as Error).message}`);
    }
  }
  for (const src of hookSources) {
    const hooks = parseHooks(src.value, { source: src.label, claude: src.claude });
    for (const [event, groups] of Object.entries(hooks.config)) {
      for (const g of groups ?? []) {
        for (const h of g.hooks)
          lines.push(
            `  hook ${event}${g.matcher ? ` [${show(g.matcher, 80)}]` : ""} (${src.label}): runs bash -c ${show(JSON.stringify(h.command))}`,
          );
      }
    }
  }

  for (const dir of [path.join(root, ".rt", "agents"), path.join(root, ".claude", "agents")]) {
    for (const f of markdownFiles(dir, false)) {
      const meta = frontmatter(f.text);
      if (meta === undefined) {
        problems.push(`${rel(f.file)}: its frontmatter is not a YAML mapping`);
        continue;
      }
      const name = typeof meta.name === "string" ? meta.name : path.basename(f.file, ".md");
      const tools = toolList(meta.tools);
      const model = typeof meta.model === "string" ? `; model ${show(meta.model, 100)}` : "";
      lines.push(
        `  agent ${show(name, 64)} (${rel(f.file)}): ${tools.length && !tools.includes("*") ? `tools ${show(tools.join(", "))}` : "every tool"}${model}`,
      );
    }
  }

  for (const dir of [path.join(root, ".rt", "commands"), path.join(root, ".claude", "commands")]) {
    for (const f of markdownFiles(dir, true)) {
      const meta = frontmatter(f.text);
      if (meta === undefined) {
        problems.push(`${rel(f.file)}: its frontmatter is not a YAML mapping`);
        continue;
      }
      const name = path.relative(dir, f.file).replace(/\.md$/, "").split(path.sep).join(":");
      const allowed = toolList(meta["allowed-tools"]);
      const allowedText = allowed.length
        ? `allowed-tools ${show(allowed.join(", "))} (run without a question during its turn)`
        : "no allowed-tools";
      lines.push(`  command /${show(name, 64)} (${rel(f.file)}): ${allowedText}`);
    }
  }

  const lsp = isPlainObject(inspection.project.lsp) ? inspection.project.lsp.servers : undefined;
  if (isPlainObject(lsp)) {
    for (const [name, s] of Object.entries(lsp)) {
      if (!isPlainObject(s)) continue;
      const command = typeof s.command === "string" ? s.command : "";
      const args = Array.isArray(s.args) ? s.args.filter((x): x is string => typeof x === "string") : [];
      const exts = Array.isArray(s.extensions) ? s.extensions.join(" ") : "";
      lines.push(
        `  language server ${show(name, 64)} (.rt/config.json): runs ${argv([command, ...args])} for ${show(exts, 100)}`,
      );
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
  if (record && record.config_sha256 !== inspection.trust.digest)
    changes.unshift({ file: ".rt/config.json", change: "edited" });
  return {
    lines,
    problems,
    pinned: Object.keys(pins).filter((k) => k !== TOO_MANY_KEY),
    changes,
    wasTrusted: record !== undefined,
  };
}

/** The inventory as text for a person: what changed, what would run, what is pinned. */
export function formatInventory(inv: TrustInventory): string {
  let out = "";
  if (inv.changes.length) out += `Changed since you last trusted it: ${formatChanges(inv.changes)}\n`;
  if (inv.lines.length) out += `What it makes rt run or use:\n${inv.lines.join("\n")}\n`;
  if (inv.problems.length)
    out += `Not used (cannot be read as a definition):\n${inv.problems.map((p) => `  ${p}`).join("\n")}\n`;
  if (inv.pinned.length) {
    const shown = inv.pinned.slice(0, TRUST_PINNED_SHOWN).map((f) => escapeInvisible(f));
    const more = inv.pinned.length - shown.length;
    out += `Extension files pinned (${inv.pinned.length}): ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}\n`;
  }
  return out;
}
