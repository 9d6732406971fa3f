// How diagnostics are shown: `path:line:col: severity: message`
// lines and the structured entries beside them (the lsp tool and the edit hook).
// A message may quote a literal type's value from another file (TypeScript's `Type '"sk-live-..."'
// is not assignable to type '"a"'` when the string was declared elsewhere), which could be a
// file outside the root or one the model was not shown: quoted literal values that do not occur
// in the diagnosed file's own text are replaced by a marker.
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

/** What a literal value from another file becomes in a diagnostic's message (its quotes kept). */
export const OUTSIDE_LITERAL = "…(literal from another file)";

/** Servers that print types in double quotes and literal values inside `Literal[...]` (Python's checkers). */
const PYTHON_STYLE = /^(pyright|basedpyright|pylance|mypy|pyre|pytype)$/i;
/** Servers that print string literal types in double quotes and template literal types in backquotes. */
const TYPESCRIPT_STYLE = /^(ts|typescript|deno-ts|deno|vue|svelte|tsserver)$/i;

const DOUBLE = String.raw`"(?:[^"\\\n]|\\.)*"`;
const SINGLE = String.raw`'(?:[^'\\\n]|\\.)*'`;
const BACK = String.raw`\x60(?:[^\x60\\\n]|\\.)*\x60`;

/** The value between a literal's quotes as written, and with its escapes undone. */
function spellings(quoted: string): string[] {
  const inner = quoted.slice(1, -1);
  const plain = inner.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, e: string) => {
    if ((e[0] === "u" && e.length > 1) || (e[0] === "x" && e.length === 3))
      return String.fromCodePoint(Number.parseInt(e.replace(/[ux{}]/g, ""), 16));
    return ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" } as Record<string, string>)[e] ?? e;
  });
  return plain === inner ? [inner] : [inner, plain];
}

/**
 * The message with every quoted literal value that does not occur in `fileText` replaced by
 * OUTSIDE_LITERAL: in TypeScript's style, string literals ("...") and template literal types
 * (`...`) anywhere in the message (its types sit in single quotes, object types' members too:
 * `'{ key: "..." }'`); in Python checkers' style, the strings inside `Literal[...]` (their
 * double quotes delimit whole types); for any other server, double-quoted strings (Go prints
 * a constant's value so). A value the file itself holds is the file's own and stays.
 */
export function redactOutsideLiterals(message: string, source: string | undefined, fileText: string): string {
  const redact = (quoted: string): string =>
    spellings(quoted).some((v) => fileText.includes(v)) ? quoted : `${quoted[0]}${OUTSIDE_LITERAL}${quoted[0]}`;
  if (source && PYTHON_STYLE.test(source)) {
    const literal = new RegExp(String.raw`Literal\[((?:${SINGLE}|${DOUBLE}|[^\]'"])*)\]`, "g");
    const inner = new RegExp(`${SINGLE}|${DOUBLE}`, "g");
    return message.replace(literal, (_, body: string) => `Literal[${body.replace(inner, redact)}]`);
  }
  const quoted = new RegExp(source && TYPESCRIPT_STYLE.test(source) ? `${DOUBLE}|${BACK}` : DOUBLE, "g");
  return message.replace(quoted, redact);
}

/** A diagnostic of the file `rel` whose text is `fileText` (its message with outside literals redacted). */
export function diagnosticEntry(rel: string, d: Diagnostic, fileText: string): DiagnosticEntry {
  return {
    path: rel,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    end_line: d.range.end.line + 1,
    end_column: d.range.end.character + 1,
    severity: SEVERITY[d.severity ?? 1] ?? "error",
    message: redactOutsideLiterals(d.message, d.source, fileText),
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
