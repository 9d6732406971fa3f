// `rt agents` and chat's /agents: the subagent types the task tool can start, as the agent would
// find them in this workspace: built-ins and definitions (name, source file,
// tools, model), with what in a file could not be read or honoured.
import path from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import type { Io } from "./io.js";
import { loadAgentDefinitions, type AgentDefinition } from "../extensions/agentDefinitions.js";
import type { ToolLookup } from "../tools/policy.js";
import { sessionToolSet } from "../agent/toolSet.js";
import { mainLoopTools } from "../agent/sessionTools/index.js";

/** Tool names a definition lists that no tool answers to (they are left out when it runs). */
function unknownTools(def: AgentDefinition, lookup: ToolLookup): string[] {
  return (def.tools ?? []).filter((n) => !lookup.find(n));
}

export async function listAgents(ws: Workspace, json: boolean, io: Io): Promise<number> {
  const load = await loadAgentDefinitions(ws);
  // Where a subagent's tools are looked up: the main agent's own lookup (registry, loop tools, extensions).
  const { lookup } = sessionToolSet({ workspace: ws, approval: "ask", loopTools: mainLoopTools(1) });
  const shown = (file: string | undefined) =>
    file ? (file.startsWith(ws.root + path.sep) ? path.relative(ws.root, file) : file) : "built-in";
  if (json) {
    const agents = load.agents.map((a) => ({
      name: a.name,
      description: a.description,
      source: a.origin,
      file: a.file ?? null,
      tools: a.tools ?? "inherit",
      model: a.model ?? "inherit",
      read_only: a.readOnly,
      notes: [...a.notes, ...unknownTools(a, lookup).map((n) => `unknown tool ${n}`)],
    }));
    io.stdout(
      `${JSON.stringify({ agents, problems: load.problems, untrusted_project_dirs: load.untrustedProjectDirs })}\n`,
    );
    return 0;
  }
  const lines: string[] = [];
  for (const a of load.agents) {
    lines.push(`${a.name}  (${a.origin === "builtin" ? "built-in" : `${a.origin}: ${shown(a.file)}`})`);
    lines.push(`  ${a.description}`);
    lines.push(
      `  tools: ${a.tools ? a.tools.join(", ") : "inherit (the main agent's)"}${a.readOnly ? " · read-only (sandboxed shell)" : ""} · model: ${a.model ?? "inherit"}`,
    );
    for (const note of [...a.notes, ...unknownTools(a, lookup).map((n) => `unknown tool "${n}": left out`)])
      lines.push(`  note: ${note}`);
  }
  for (const p of load.problems) lines.push(`problem: ${shown(p.file)}: ${p.message}`);
  for (const d of load.untrustedProjectDirs)
    lines.push(`not read: ${shown(d)} (the folder is not trusted; rt trust trusts it)`);
  io.stdout(`${lines.join("\n")}\n`);
  return 0;
}
