// How diagnostics are shown: `path:line:col: severity: message`
// lines and the structured entries beside them (the lsp tool and the edit hook).
import type { Diagnostic } from "vscode-languageserver-protocol";

const SEVERITY = ["", "error", "warning", "info", "hint"];

export interface DiagnosticEntry {
  path: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: string;
  message: string;
  source?: string;
  code?: string | number;
}

export function diagnosticEntry(rel: string, d: Diagnostic): DiagnosticEntry {
  return {
    path: rel,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    end_line: d.range.end.line + 1,
    end_column: d.range.end.character + 1,
    severity: SEVERITY[d.severity ?? 1] ?? "error",
    message: d.message,
    ...(d.source ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: d.code } : {}),
  };
}

/** One diagnostic's line: path:line:col: severity: message (a message's later lines indented under it). */
export function diagnosticLine(d: DiagnosticEntry): string {
  const code =
    d.code !== undefined ? ` [${d.source ? `${d.source} ` : ""}${d.code}]` : d.source ? ` [${d.source}]` : "";
  return `${d.path}:${d.line}:${d.column}: ${d.severity}: ${d.message.replace(/\n/g, "\n    ")}${code}`;
}
