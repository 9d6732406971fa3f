// Jupyter notebooks (.ipynb, nbformat 4): reading cells and editing one cell
// while every byte outside it stays as it was.
//
// Why not parse and re-serialize: a notebook written by Jupyter (Python's
// json.dumps: indent 1, sorted keys, non-ASCII kept), by VS Code (its own
// indent and key order) or by hand differs in ways JSON.stringify would
// normalize, and a one-cell edit would then rewrite the whole file. So the
// text is scanned once for the byte span of each element of "cells"; an edit
// replaces, inserts or removes one span, and only the new cell is serialized,
// in the style the file already uses (its indent unit, its key order:
// sorted when the file's keys are sorted, as nbformat writes them).
import { ToolError } from "../base/errors.js";
import { NOTEBOOK_MAX_JSON_CONTAINERS, NOTEBOOK_MAX_JSON_DEPTH } from "../base/limits.js";

/** One cell as nbformat stores it (only the fields rt reads are typed). */
export interface NotebookCell {
  id?: string;
  cell_type: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface NotebookOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface ParsedNotebook {
  /** The notebook as JSON. */
  json: {
    cells: NotebookCell[];
    metadata?: Record<string, unknown>;
    nbformat: number;
    nbformat_minor: number;
    [key: string]: unknown;
  };
  /** Byte... character spans [start, end) of each cell object in the text. */
  spans: Array<{ start: number; end: number }>;
  /** The span of the "cells" array itself, brackets included. */
  array: { start: number; end: number };
  /** One level of indentation as the file writes it ("" for a file on one line). */
  indentUnit: string;
  /** Whether the file's keys are in sorted order (nbformat's json.dumps(sort_keys=True)). */
  sortedKeys: boolean;
  /** Whether non-ASCII characters are written as \uXXXX escapes (ensure_ascii). */
  asciiOnly: boolean;
  /** The line break the file uses. */
  eol: "\n" | "\r\n";
}

/** Where the JSON value starting at `i` (after whitespace) ends. */
function skipValue(text: string, i: number): number {
  i = skipWs(text, i);
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === "{" || c === "[") {
    const close = c === "{" ? "}" : "]";
    i = skipWs(text, i + 1);
    if (text[i] === close) return i + 1;
    for (;;) {
      if (c === "{") {
        i = skipString(text, skipWs(text, i));
        i = skipWs(text, i);
        if (text[i] !== ":") throw new SyntaxError(`expected ':' at ${i}`);
        i++;
      }
      i = skipWs(text, skipValue(text, i));
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) return i + 1;
      throw new SyntaxError(`expected ',' or '${close}' at ${i}`);
    }
  }
  const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
  if (!m) throw new SyntaxError(`unexpected character at ${i}`);
  return i + m[0].length;
}

function skipString(text: string, i: number): number {
  if (text[i] !== '"') throw new SyntaxError(`expected a string at ${i}`);
  for (let k = i + 1; k < text.length; k++) {
    const ch = text.charCodeAt(k);
    if (ch === 92) k++;
    else if (ch === 34) return k + 1;
  }
  throw new SyntaxError("unterminated string");
}

function skipWs(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  return i;
}

/** The top-level keys of the object in `text` with the span of each value. */
function topLevel(text: string): Map<string, { start: number; end: number }> {
  const out = new Map<string, { start: number; end: number }>();
  let i = skipWs(text, 0);
  if (text[i] !== "{") throw new SyntaxError("a notebook is a JSON object");
  i = skipWs(text, i + 1);
  if (text[i] === "}") return out;
  for (;;) {
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWs(text, keyEnd);
    if (text[i] !== ":") throw new SyntaxError(`expected ':' at ${i}`);
    const start = skipWs(text, i + 1);
    const end = skipValue(text, start);
    out.set(key, { start, end });
    i = skipWs(text, end);
    if (text[i] === ",") {
      i = skipWs(text, i + 1);
      continue;
    }
    if (text[i] === "}") return out;
    throw new SyntaxError(`expected ',' or '}' at ${i}`);
  }
}

/** The spans of the elements of the array at `start`. */
function elements(text: string, start: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let i = skipWs(text, start + 1);
  if (text[i] === "]") return out;
  for (;;) {
    const end = skipValue(text, i);
    out.push({ start: i, end });
    i = skipWs(text, end);
    if (text[i] === ",") {
      i = skipWs(text, i + 1);
      continue;
    }
    if (text[i] === "]") return out;
    throw new SyntaxError(`expected ',' or ']' at ${i}`);
  }
}

function keysSorted(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(keysSorted);
  if (value === null || typeof value !== "object") return true;
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return Object.values(value).every(keysSorted);
}

/**
 * Refuses JSON with more objects and arrays, or deeper nesting, than a notebook has, before
 * JSON.parse builds it: 96 MB of `{}` is 32 million objects, about 3 GB of memory, and a deep
 * nesting overflows the recursive walks below. One pass over the text, strings skipped.
 */
export function checkJsonShape(rel: string, text: string, maxContainers: number, maxDepth: number): void {
  let containers = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one not preceded by an odd run of backslashes.
      for (let j = text.indexOf('"', i + 1); ; j = text.indexOf('"', j + 1)) {
        if (j < 0) return; // unterminated: JSON.parse says so
        let k = j - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        if ((j - 1 - k) % 2 === 0) {
          i = j;
          break;
        }
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++containers > maxContainers) {
        throw new ToolError(
          `${rel}: holds more than ${maxContainers.toLocaleString("en-US")} JSON objects and arrays, over rt's budget for a notebook; it was not parsed`,
        );
      }
      if (++depth > maxDepth) {
        throw new ToolError(
          `${rel}: JSON nested more than ${maxDepth} levels deep, over rt's budget for a notebook; it was not parsed`,
        );
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/** Parses a notebook and locates its cells; throws ToolError naming what is wrong. */
export function parseNotebook(rel: string, text: string): ParsedNotebook {
  checkJsonShape(rel, text, NOTEBOOK_MAX_JSON_CONTAINERS, NOTEBOOK_MAX_JSON_DEPTH);
  let json: ParsedNotebook["json"];
  try {
    json = JSON.parse(text) as ParsedNotebook["json"];
  } catch (e) {
    throw new ToolError(`${rel}: not a notebook: the file is not valid JSON (${(e as Error).message})`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json) || !Array.isArray(json.cells)) {
    throw new ToolError(`${rel}: not a notebook: no "cells" array (rt reads nbformat 4 notebooks)`);
  }
  if (json.nbformat !== 4)
    throw new ToolError(
      `${rel}: nbformat ${String(json.nbformat)}: rt reads and edits nbformat 4 notebooks only (convert it with \`jupyter nbconvert --to notebook\`)`,
    );
  for (const [i, c] of json.cells.entries()) {
    if (c === null || typeof c !== "object" || typeof c.cell_type !== "string")
      throw new ToolError(`${rel}: cell ${i + 1} has no cell_type: not a valid notebook`);
  }
  const top = topLevel(text);
  const array = top.get("cells")!;
  const spans = elements(text, array.start);
  const indentMatch = /\n([ \t]+)\S/.exec(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return {
    json,
    spans,
    array,
    indentUnit: indentMatch ? indentMatch[1] : "",
    sortedKeys: keysSorted(json),
    // ensure_ascii: no raw non-ASCII character, and at least one escaped (a \u escape of
    // U+0080 or above, after an even run of backslashes: "\\u00e9" is a backslash then text).
    asciiOnly:
      !/[^\x00-\x7f]/.test(text) &&
      /(?<!\\)(?:\\\\)*\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/.test(text),
    eol,
  };
}

/** A cell's source as one string (nbformat allows a string or a list of lines). */
export function sourceText(source: unknown): string {
  if (typeof source === "string") return source;
  if (Array.isArray(source)) return source.map((s) => (typeof s === "string" ? s : "")).join("");
  return "";
}

/**
 * The source split the way Jupyter writes it: Python's str.splitlines(True),
 * which nbformat uses, so lines end at \r\n, \n, \r and the other breaks
 * Python knows (\v, \f, \x1c-\x1e, \x85, \u2028, \u2029), each kept.
 */
function sourceLines(text: string): string[] {
  return text
    .match(/[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]|$)/g)!
    .filter((p) => p !== "");
}

/** The id a cell is addressed by: its own id, else "cell-N" (1-based) for notebooks before nbformat 4.5. */
export function cellKey(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index + 1}`;
}

/** The index of the cell `cellId` names (its id, or cell-N), or a ToolError listing the valid ones. */
export function findCell(rel: string, nb: ParsedNotebook, cellId: string): number {
  const cells = nb.json.cells;
  let at = cells.findIndex((c, i) => cellKey(c, i) === cellId);
  if (at < 0) {
    const m = /^cell-(\d+)$/.exec(cellId);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= cells.length) at = Number(m[1]) - 1;
  }
  if (at < 0) {
    const ids = cells.map((c, i) => cellKey(c, i));
    const shown = ids.length > 12 ? `${ids.slice(0, 12).join(", ")}, … (${ids.length} cells)` : ids.join(", ");
    throw new ToolError(
      `${rel}: no cell with id "${cellId}"; the cells are: ${shown || "(none: the notebook is empty)"}. Read the notebook to see them`,
    );
  }
  return at;
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeysDeep((value as Record<string, unknown>)[k]);
  return out;
}

/** A cell serialized in the file's style, indented for its place (depth 2: inside "cells" inside the notebook). */
function serializeCell(nb: ParsedNotebook, cell: NotebookCell): string {
  const value = nb.sortedKeys ? sortKeysDeep(cell) : cell;
  let s = nb.indentUnit === "" ? JSON.stringify(value) : JSON.stringify(value, null, nb.indentUnit);
  if (nb.asciiOnly) s = s.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (nb.indentUnit === "") return s;
  const pad = nb.indentUnit.repeat(2);
  return s.split("\n").join(`${nb.eol}${pad}`);
}

/** A random cell id as nbformat makes them (8 hex digits), not used by another cell. */
function newCellId(nb: ParsedNotebook): string {
  const used = new Set(nb.json.cells.map((c) => c.id));
  for (;;) {
    const id = Array.from({ length: 8 }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");
    if (!used.has(id)) return id;
  }
}

export type NotebookEditMode = "replace" | "insert" | "delete";

export interface NotebookEdit {
  mode: NotebookEditMode;
  /** replace/delete: the cell; insert: the new cell goes after it (absent: at the beginning). */
  cellId?: string;
  newSource?: string;
  cellType?: "code" | "markdown" | "raw";
}

export interface NotebookEditResult {
  text: string;
  /** The index (0-based) of the cell replaced or inserted, or of the cell removed. */
  index: number;
  /** The id of that cell. */
  cellId: string;
  cellType: string;
}

/** The cell a replace or insert writes: the old cell's keys in their order, the new source in the old form (string or lines). */
function buildCell(nb: ParsedNotebook, old: NotebookCell | undefined, source: string, type: string): NotebookCell {
  const asLines = old ? Array.isArray(old.source) : true;
  const src = asLines ? sourceLines(source) : source;
  const cell: NotebookCell = old ? { ...old } : ({} as NotebookCell);
  if (!old) {
    cell.cell_type = type;
    if (nb.json.nbformat_minor >= 5) cell.id = newCellId(nb);
    cell.metadata = {};
  }
  cell.cell_type = type;
  cell.source = src;
  if (type === "code") {
    // A changed source makes the old outputs describe code that is no longer there.
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
  if (type !== "raw" && type !== "markdown") delete cell.attachments;
  return cell;
}

/** Applies one edit to the notebook's text; everything outside the edited cell is kept byte for byte. */
export function editNotebook(rel: string, text: string, edit: NotebookEdit): NotebookEditResult {
  const nb = parseNotebook(rel, text);
  const cells = nb.json.cells;
  const ind1 = nb.indentUnit;
  const sep = ind1 === "" ? "," : `,${nb.eol}${ind1.repeat(2)}`;
  if (edit.mode === "delete") {
    if (edit.cellId === undefined) throw new ToolError("delete needs cell_id: the cell to remove");
    const k = findCell(rel, nb, edit.cellId);
    const spans = nb.spans;
    let out: string;
    if (k + 1 < spans.length) out = text.slice(0, spans[k].start) + text.slice(spans[k + 1].start);
    else if (k > 0) out = text.slice(0, spans[k - 1].end) + text.slice(spans[k].end);
    else out = text.slice(0, nb.array.start) + "[]" + text.slice(nb.array.end);
    return { text: out, index: k, cellId: cellKey(cells[k], k), cellType: cells[k].cell_type };
  }
  if (edit.newSource === undefined) throw new ToolError(`${edit.mode} needs new_source: the cell's new content`);
  if (edit.mode === "replace") {
    if (edit.cellId === undefined) throw new ToolError("replace needs cell_id: the cell to change");
    const k = findCell(rel, nb, edit.cellId);
    const old = cells[k];
    const cell = buildCell(nb, old, edit.newSource, edit.cellType ?? old.cell_type);
    const out = text.slice(0, nb.spans[k].start) + serializeCell(nb, cell) + text.slice(nb.spans[k].end);
    return { text: out, index: k, cellId: cellKey(cell, k), cellType: cell.cell_type };
  }
  // insert: after cell_id, or at the beginning.
  const after = edit.cellId === undefined ? -1 : findCell(rel, nb, edit.cellId);
  const cell = buildCell(nb, undefined, edit.newSource, edit.cellType ?? "code");
  const body = serializeCell(nb, cell);
  let out: string;
  if (nb.spans.length === 0) {
    const open = ind1 === "" ? "[" : `[${nb.eol}${ind1.repeat(2)}`;
    const close = ind1 === "" ? "]" : `${nb.eol}${ind1}]`;
    out = text.slice(0, nb.array.start) + open + body + close + text.slice(nb.array.end);
  } else if (after < 0) {
    out = text.slice(0, nb.spans[0].start) + body + sep + text.slice(nb.spans[0].start);
  } else {
    out = text.slice(0, nb.spans[after].end) + sep + body + text.slice(nb.spans[after].end);
  }
  return { text: out, index: after + 1, cellId: cellKey(cell, after + 1), cellType: cell.cell_type };
}

/** Text of an output field (a string or a list of strings). */
function joined(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.filter((x) => typeof x === "string").join("");
  return "";
}

// ANSI colour codes in tracebacks (IPython colours them) mean nothing to a model.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** An image an output carries: its MIME type and base64 data. */
export interface NotebookImage {
  cell: number;
  mime: string;
  base64: string;
}

export interface RenderOptions {
  /** First cell (1-based) and how many. */
  offset: number;
  limit: number;
  /** Characters of one output's text shown; the rest is cut with a note. */
  outputMaxChars: number;
}

/** The cells in order, as text for a model: id, type, source, outputs. */
export function renderNotebook(
  nb: ParsedNotebook,
  opts: RenderOptions,
): { text: string; shown: number; images: NotebookImage[] } {
  const cells = nb.json.cells;
  const out: string[] = [];
  const images: NotebookImage[] = [];
  const cut = (s: string) =>
    s.length > opts.outputMaxChars
      ? `${s.slice(0, opts.outputMaxChars)}\n… [output cut: ${s.length - opts.outputMaxChars} more characters]`
      : s;
  const from = opts.offset - 1;
  const to = Math.min(cells.length, from + opts.limit);
  for (let i = from; i < to; i++) {
    const c = cells[i];
    const count = c.cell_type === "code" && typeof c.execution_count === "number" ? ` [${c.execution_count}]` : "";
    out.push(`<cell ${i + 1} id="${cellKey(c, i)}" type="${c.cell_type}"${count}>`);
    out.push(sourceText(c.source).replace(/\n$/, ""));
    for (const o of Array.isArray(c.outputs) ? c.outputs : []) {
      if (!o || typeof o !== "object") continue;
      if (o.output_type === "stream") {
        out.push(
          `<output ${o.name === "stderr" ? "stderr" : "stdout"}>`,
          cut(joined(o.text).replace(/\n$/, "")),
          "</output>",
        );
      } else if (o.output_type === "error") {
        const tb = Array.isArray(o.traceback) ? o.traceback.join("\n").replace(ANSI, "") : "";
        out.push(`<output error>`, cut(`${o.ename ?? "Error"}: ${o.evalue ?? ""}${tb ? `\n${tb}` : ""}`), "</output>");
      } else if (o.data && typeof o.data === "object") {
        const data = o.data;
        for (const mime of ["image/png", "image/jpeg", "image/gif", "image/webp"]) {
          const b64 = joined(data[mime]).replace(/\s+/g, "");
          if (b64) {
            images.push({ cell: i + 1, mime, base64: b64 });
            out.push(`<output ${mime}: ${Math.floor((b64.length * 3) / 4)} bytes>`);
          }
        }
        const plain = joined(data["text/plain"]) || joined(data["text/markdown"]);
        if (plain) out.push(`<output ${o.output_type}>`, cut(plain.replace(/\n$/, "")), "</output>");
        else if (!Object.keys(data).some((m) => m.startsWith("image/")))
          out.push(`<output ${o.output_type}: ${Object.keys(data).join(", ") || "no data"}>`);
      }
    }
    out.push("</cell>");
  }
  return { text: out.join("\n"), shown: to - from, images };
}
