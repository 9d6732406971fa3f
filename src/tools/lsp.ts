// lsp: what a language server knows about the code: diagnostics, definition,
// references, hover, a file's symbols, the workspace's symbols. Servers start
// on first use (src/lsp/manager.ts); positions are 1-based lines and columns,
// or a line and the name of a symbol on it (models count columns badly).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import type {
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
  SymbolInformation,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import type { LspClient } from "../lsp/client.js";
import { diagnosticEntry, diagnosticLine } from "../lsp/format.js";
import type { LspManager, ServerHandle } from "../lsp/manager.js";
import { bundledServerDirs } from "../lsp/servers.js";
import { baseArgs, comparePaths, lineSplitter, runRg } from "./shared/ripgrep.js";
import { GREP_TIMEOUT_MS, LSP_DIRECTORY_MAX_FILES, LSP_HOVER_MAX_CHARS, LSP_MAX_RESULTS } from "../base/limits.js";

const OPERATIONS = ["diagnostics", "definition", "references", "hover", "symbols", "workspace_symbols"] as const;
type Operation = (typeof OPERATIONS)[number];

/** LSP's SymbolKind numbers, named. */
const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];

async function lspModules() {
  const { lspManager } = await import("../lsp/manager.js");
  return { lspManager };
}

/** The file's text as the workspace reads it (confined, no symlink followed). */
function readFile(workspace: Workspace, rel: string): string {
  const bytes = workspace.writer.readFile(rel);
  if (bytes === undefined) throw new ToolError(`${rel}: file not found`);
  return bytes.toString("utf8");
}

/** Opens (or updates) the file on its server. */
async function openOn(
  manager: LspManager,
  workspace: Workspace,
  rel: string,
): Promise<{ handle: ServerHandle; abs: string; text: string }> {
  const file = workspace.resolveTextFile(rel);
  const text = readFile(workspace, file.rel);
  const handle = await manager.serverFor(file.rel);
  const changed = await handle.client.sync(
    file.abs,
    text,
    handle.spec.languageId(path.extname(file.rel).toLowerCase()),
  );
  // A server just started is still finding the project's files (pyright enumerates them after
  // initialize): references asked now would miss other files. Its first diagnostics of the file
  // come once it has, so the first question waits for them.
  if (handle.started && changed)
    await handle.client.diagnosticsOf(file.abs, manager.requestTimeoutMs).catch(() => undefined);
  return { handle, abs: file.abs, text };
}

/** Where a file is: in the workspace (its real path too), in a bundled server's library, or elsewhere. */
function placeOf(workspace: Workspace, abs: string): "inside" | "library" | "outside" {
  let real = abs;
  try {
    real = fs.realpathSync(abs);
  } catch {
    /* a file that does not exist: its name decides */
  }
  const within = (dir: string, p: string) => p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
  let root = workspace.root;
  try {
    root = fs.realpathSync(root);
  } catch {
    /* as given */
  }
  // A symlink in the workspace to a file elsewhere is elsewhere: read refuses it, and so does this.
  if ((within(workspace.root, abs) || within(root, abs)) && within(root, real)) return "inside";
  return bundledServerDirs().some((d) => within(d, real)) ? "library" : "outside";
}

/**
 * A location as path:line:col, relative to the root when inside it; with the line's text when it
 * is. `hidden`: the location is in a file outside the workspace (and not a bundled server's
 * library), which an answer must not name or quote: the server can read files that rt's own
 * tools refuse (a symlink to ~/.aws/credentials, an import by absolute path).
 */
function locationLine(
  workspace: Workspace,
  uri: string,
  line: number,
  character: number,
  texts: Map<string, string[] | null>,
): { text: string; entry: Record<string, unknown>; hidden: boolean } {
  let abs: string;
  try {
    abs = fileURLToPath(uri);
  } catch {
    return { text: "", entry: {}, hidden: true };
  }
  const place = placeOf(workspace, abs);
  if (place === "outside") return { text: "", entry: {}, hidden: true };
  const rel = path.relative(workspace.root, abs);
  const inside = place === "inside";
  const shown = inside ? rel.split(path.sep).join("/") : abs;
  let lines = texts.get(abs);
  if (lines === undefined) {
    lines = null;
    if (inside) {
      try {
        lines = readFile(workspace, shown).split("\n");
      } catch {
        lines = null;
      }
    }
    texts.set(abs, lines);
  }
  const code = lines?.[line]?.replace(/\r$/, "").trim();
  return {
    text: `${shown}:${line + 1}:${character + 1}${code ? `: ${code}` : ""}`,
    entry: { path: shown, line: line + 1, column: character + 1, ...(inside ? {} : { outside_workspace: true }) },
    hidden: false,
  };
}

/** The note for answers left out because they name files outside the workspace. */
function hiddenNote(n: number, what: string): string[] {
  return n > 0 ? [`(${n} ${what}${n === 1 ? "" : "s"} in files outside the workspace not shown)`] : [];
}

/** The 0-based LSP position of a 1-based line and column, or of a symbol's name on the line. */
function positionIn(
  text: string,
  rel: string,
  line: number | undefined,
  column: number | undefined,
  symbol: string | undefined,
): { line: number; character: number } {
  if (line === undefined)
    throw new ToolError("this operation needs a position: line and column, or line and symbol (a name on that line)");
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop(); // the final newline ends the last line
  if (line > lines.length) throw new ToolError(`line ${line} is past the end of ${rel} (${lines.length} lines)`);
  const lineText = lines[line - 1].replace(/\r$/, "");
  if (symbol !== undefined) {
    const escaped = symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const word = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).exec(lineText) ?? new RegExp(escaped).exec(lineText);
    if (!word)
      throw new ToolError(
        `"${symbol}" is not on line ${line} of ${rel}: ${JSON.stringify(lineText.trim().slice(0, 120))}`,
      );
    return { line: line - 1, character: word.index };
  }
  if (column === undefined) throw new ToolError("give column (1-based) or symbol (a name on the line) with line");
  if (column > lineText.length + 1)
    throw new ToolError(`column ${column} is past the end of line ${line} of ${rel} (${lineText.length} characters)`);
  return { line: line - 1, character: column - 1 };
}

function hoverText(h: Hover | null): string {
  if (!h) return "";
  const part = (c: MarkedString | MarkupContent): string =>
    typeof c === "string" ? c : "language" in c ? "```" + c.language + "\n" + c.value + "\n```" : c.value;
  const text = Array.isArray(h.contents) ? h.contents.map(part).join("\n\n") : part(h.contents);
  return text.length > LSP_HOVER_MAX_CHARS ? `${text.slice(0, LSP_HOVER_MAX_CHARS)}…` : text.trim();
}

async function directoryFiles(
  workspace: Workspace,
  manager: LspManager,
  rel: string,
  signal?: AbortSignal,
): Promise<{ files: string[]; more: number }> {
  const names: string[] = [];
  const lines = lineSplitter((l) => {
    if (l) names.push(l);
  });
  const args = [...baseArgs(), "--files"];
  if (rel !== ".") args.push("--", rel);
  await runRg(args, workspace.root, GREP_TIMEOUT_MS, lines.onData, signal);
  lines.end();
  names.sort(comparePaths);
  const served = names.filter((n) => manager.specFor(n) !== undefined);
  return {
    files: served.slice(0, LSP_DIRECTORY_MAX_FILES),
    more: Math.max(0, served.length - LSP_DIRECTORY_MAX_FILES),
  };
}

async function diagnostics(workspace: Workspace, manager: LspManager, target: string, signal?: AbortSignal) {
  const r = workspace.resolve(target);
  if (!r.exists) throw new ToolError(`${r.rel}: not found`);
  const isDir = fs.statSync(r.abs).isDirectory();
  const { files, more } = isDir ? await directoryFiles(workspace, manager, r.rel, signal) : { files: [r.rel], more: 0 };
  if (files.length === 0)
    throw new ToolError(`${r.rel}: no files a language server serves (${manager.supportedExtensions().join(" ")})`);
  const opened: Array<{ rel: string; abs: string; client: LspClient; text: string }> = [];
  const servers = new Map<string, ServerHandle>();
  for (const rel of files) {
    const o = await openOn(manager, workspace, rel);
    opened.push({ rel, abs: o.abs, client: o.handle.client, text: o.text });
    const seen = servers.get(o.handle.spec.name);
    if (!seen || o.handle.started) servers.set(o.handle.spec.name, o.handle);
  }
  const results = await Promise.all(
    opened.map(async (o) => ({
      rel: o.rel,
      text: o.text,
      diags: await o.client.diagnosticsOf(o.abs, manager.requestTimeoutMs),
    })),
  );
  const entries = results.flatMap((x) => x.diags.map((d) => diagnosticEntry(x.rel, d, x.text)));
  entries.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line || a.column - b.column);
  const errors = entries.filter((e) => e.severity === "error").length;
  const shown = entries.slice(0, LSP_MAX_RESULTS);
  const out = shown.map(diagnosticLine);
  const what = files.length === 1 ? files[0] : `${files.length} files under ${r.rel}`;
  out.push(
    entries.length === 0
      ? `no diagnostics in ${what}`
      : `${errors} error${errors === 1 ? "" : "s"}, ${entries.length - errors} other${entries.length - errors === 1 ? "" : "s"} in ${what}`,
  );
  if (entries.length > shown.length) out.push(`... truncated (${entries.length - shown.length} more)`);
  if (more > 0) out.push(`... ${more} more files not checked (at most ${LSP_DIRECTORY_MAX_FILES}); narrow the path`);
  const handles = [...servers.values()];
  return ok(out.join("\n"), { diagnostics: entries, errors, files: files.length, ...serverMeta(handles) });
}

function serverMeta(handles: ServerHandle[]) {
  return {
    servers: handles.map((h) => h.spec.name),
    server_started: handles.some((h) => h.started),
    ...(handles.some((h) => h.restarted) ? { server_restarted: true } : {}),
  };
}

function symbolLines(
  symbols: Array<DocumentSymbol | SymbolInformation>,
  workspace: Workspace,
  rel: string,
  texts: Map<string, string[] | null>,
): { lines: string[]; entries: Array<Record<string, unknown>>; hidden: number } {
  let hidden = 0;
  const lines: string[] = [];
  const entries: Array<Record<string, unknown>> = [];
  const walk = (list: Array<DocumentSymbol | SymbolInformation>, depth: number, container: string[]) => {
    for (const s of list) {
      if (entries.length >= LSP_MAX_RESULTS) return;
      const kind = SYMBOL_KINDS[s.kind] ?? "symbol";
      if ("location" in s) {
        const at = locationLine(
          workspace,
          s.location.uri,
          s.location.range.start.line,
          s.location.range.start.character,
          texts,
        );
        if (at.hidden) {
          hidden++;
          continue;
        }
        lines.push(
          `${at.entry.path ?? rel}:${s.location.range.start.line + 1}-${s.location.range.end.line + 1}: ${kind} ${s.containerName ? `${s.containerName}.` : ""}${s.name}`,
        );
        entries.push({
          ...at.entry,
          kind,
          name: s.name,
          container: s.containerName,
          end_line: s.location.range.end.line + 1,
        });
      } else {
        lines.push(
          `${s.range.start.line + 1}-${s.range.end.line + 1} ${"  ".repeat(depth)}${kind} ${s.name}${s.detail ? `: ${s.detail}` : ""}`,
        );
        entries.push({
          kind,
          name: s.name,
          container: container.join(".") || undefined,
          start_line: s.range.start.line + 1,
          end_line: s.range.end.line + 1,
        });
        if (s.children?.length) walk(s.children, depth + 1, [...container, s.name]);
      }
    }
  };
  walk(symbols, 0, []);
  return { lines, entries, hidden };
}

export const lspTool = defineTool({
  name: "lsp",
  aliases: ["LSP"],
  brief: `Ask a language server: diagnostics, definition, references, hover, symbols.`,
  description: `Language server (TS/JS, Python, configured). diagnostics {path}: path:line:col: severity: message; definition, references, hover {path, line, column or symbol}; symbols {path}; workspace_symbols {query}.`,
  schema: () =>
    z
      .object({
        operation: z.enum(OPERATIONS),
        path: z.string().optional().describe("File (diagnostics: or directory)"),
        line: z.number().int().min(1).optional().describe("1-based line"),
        column: z.number().int().min(1).optional().describe("1-based column (or symbol)"),
        symbol: z.string().min(1).optional().describe("A name on that line"),
        query: z.string().optional().describe("For workspace_symbols"),
      })
      .strict(),
  cli: {
    synopsis:
      "rt lsp diagnostics PATH | rt lsp definition|references|hover PATH LINE COLUMN|SYMBOL | rt lsp symbols PATH | rt lsp workspace_symbols QUERY [PATH]",
    summary:
      "ask a language server (TypeScript/JavaScript, Python, configured ones); diagnostics print path:line:col: severity: message and exit 1 when there are errors",
    positionals: [
      { key: "operation", name: "OPERATION" },
      { key: "path", name: "PATH", path: true },
      { key: "line", name: "LINE", optional: true },
      { key: ["column", "symbol"], name: "COLUMN|SYMBOL", optional: true },
    ],
    forms: [
      {
        when: { operation: "workspace_symbols" },
        positionals: [
          { key: "operation", name: "OPERATION" },
          { key: "query", name: "QUERY" },
          { key: "path", name: "PATH", optional: true, path: true },
        ],
      },
    ],
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { lspManager } = await lspModules();
    const manager = lspManager(workspace);
    const op: Operation = args.operation;
    const lsp = await (await import("../lsp/client.js")).loadProtocol();
    const timeout = manager.requestTimeoutMs;
    if (op === "workspace_symbols") {
      if (args.query === undefined) throw new ToolError("workspace_symbols needs query (a name or part of one)");
      let handles: ServerHandle[];
      if (args.path !== undefined) handles = [(await openOn(manager, workspace, args.path)).handle];
      else {
        const running = manager.running();
        handles = running.map((r) => ({ client: r.client, spec: r.spec, started: false, restarted: false }));
        if (handles.length === 0) {
          // No server yet: start one for each language the workspace has files of (a file of each opened, so the
          // server knows the project); a server that cannot start here is named, the others answer.
          const { files } = await directoryFiles(workspace, manager, ".", signal);
          const first = new Map<string, string>();
          for (const f of files) {
            const name = manager.specFor(f)?.name;
            if (name && !first.has(name)) first.set(name, f);
          }
          const failed: string[] = [];
          for (const f of first.values()) {
            try {
              handles.push((await openOn(manager, workspace, f)).handle);
            } catch (e) {
              failed.push((e as Error).message);
            }
          }
          if (handles.length === 0) {
            throw new ToolError(
              first.size === 0
                ? `no files a language server serves in the workspace (${manager.supportedExtensions().join(" ")})`
                : `no language server could start: ${failed.join("; ")}`,
            );
          }
        }
      }
      const texts = new Map<string, string[] | null>();
      const lines: string[] = [];
      const entries: Array<Record<string, unknown>> = [];
      let hidden = 0;
      for (const h of handles) {
        const found =
          (await h.client.request<Array<SymbolInformation | WorkspaceSymbol> | null>(
            lsp.WorkspaceSymbolRequest.type.method,
            { query: args.query },
            timeout,
          )) ?? [];
        const asInfo = found.filter(
          (s): s is SymbolInformation => "location" in s && "range" in (s.location as object),
        );
        const r = symbolLines(asInfo, workspace, "", texts);
        lines.push(...r.lines);
        entries.push(...r.entries);
        hidden += r.hidden;
      }
      const shown = lines.slice(0, LSP_MAX_RESULTS);
      if (shown.length === 0) shown.push(`no symbols matching "${args.query}"`);
      shown.push(...hiddenNote(hidden, "symbol"));
      return ok(shown.join("\n"), { symbols: entries.slice(0, LSP_MAX_RESULTS), ...serverMeta(handles) });
    }
    if (args.path === undefined) throw new ToolError(`${op} needs path`);
    if (op === "diagnostics") return diagnostics(workspace, manager, args.path, signal);
    const { handle, abs, text } = await openOn(manager, workspace, args.path);
    const rel = workspace.resolve(args.path).rel;
    const uri = (await import("../lsp/client.js")).fileUri(abs);
    const texts = new Map<string, string[] | null>([[abs, text.split("\n")]]);
    if (op === "symbols") {
      const found =
        (await handle.client.request<Array<DocumentSymbol | SymbolInformation> | null>(
          lsp.DocumentSymbolRequest.type.method,
          { textDocument: { uri } },
          timeout,
        )) ?? [];
      const r = symbolLines(found, workspace, rel, texts);
      return ok([`${rel}: ${r.entries.length} symbols`, ...r.lines, ...hiddenNote(r.hidden, "symbol")].join("\n"), {
        path: rel,
        symbols: r.entries,
        ...serverMeta([handle]),
      });
    }
    const position = positionIn(text, rel, args.line, args.column, args.symbol);
    const at = `${rel}:${position.line + 1}:${position.character + 1}`;
    const locate = async (method: string, params: unknown) => {
      const raw =
        (await handle.client.request<Location | Location[] | LocationLink[] | null>(method, params, timeout)) ?? [];
      const list = (Array.isArray(raw) ? raw : [raw]).map((l) =>
        "targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange } : l,
      );
      return list.map((l) => locationLine(workspace, l.uri, l.range.start.line, l.range.start.character, texts));
    };
    if (op === "hover") {
      // A hover quotes the declaration (a constant's value, a type): when the symbol is defined in a file
      // outside the workspace, its text is that file's, and is not shown.
      const defined = await locate(lsp.DefinitionRequest.type.method, { textDocument: { uri }, position }).catch(
        () => [],
      );
      if (defined.some((d) => d.hidden)) {
        return ok(
          `hover at ${at} not shown: the symbol is defined in a file outside the workspace, which rt does not read`,
          {
            hover: "",
            outside_workspace: true,
            position: { line: position.line + 1, column: position.character + 1 },
            ...serverMeta([handle]),
          },
        );
      }
      const h = await handle.client.request<Hover | null>(
        lsp.HoverRequest.type.method,
        { textDocument: { uri }, position },
        timeout,
      );
      const shown = hoverText(h);
      return ok(shown || `no information at ${at}`, {
        hover: shown,
        position: { line: position.line + 1, column: position.character + 1 },
        ...serverMeta([handle]),
      });
    }
    const method = op === "definition" ? lsp.DefinitionRequest.type.method : lsp.ReferencesRequest.type.method;
    const params =
      op === "definition"
        ? { textDocument: { uri }, position }
        : { textDocument: { uri }, position, context: { includeDeclaration: true } };
    const all = await locate(method, params);
    const located = all.filter((l) => !l.hidden);
    const shown = located.slice(0, LSP_MAX_RESULTS).map((l) => l.text);
    if (shown.length === 0) shown.push(`no ${op === "definition" ? "definition" : "references"} found for ${at}`);
    if (located.length > LSP_MAX_RESULTS) shown.push(`... truncated (${located.length - LSP_MAX_RESULTS} more)`);
    shown.push(...hiddenNote(all.length - located.length, "location"));
    return ok(shown.join("\n"), {
      locations: located.map((l) => l.entry),
      position: { line: position.line + 1, column: position.character + 1 },
      ...serverMeta([handle]),
    });
  },
});
