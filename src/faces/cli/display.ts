// How a tool's result looks on the command line: the same text the other faces
// get, with paths shown relative to the current directory (when it is inside the
// workspace root) and, on a terminal, colour: paths, line numbers and matches.
// The tools write root-relative paths; their results name those paths exactly
// (matches[].file, files[], path...), so each is replaced where it stands.
import { spawnSync } from "node:child_process";
import type { ToolResult } from "../../tools/types.js";
import type { Palette } from "./terminal.js";

export interface Screen {
  palette: Palette;
  /** A root-relative path as the user should see it. */
  show: (rel: string) => string;
  /** Highlight matches (a terminal with colour): ripgrep's path, asked where the pattern matches in the lines shown. */
  highlight?: string;
}

/** `text` with every whole-path occurrence of each `from` replaced (not inside longer names). */
export function relabel(text: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = text;
  for (const [from, to] of pairs) {
    if (!from || from === to) continue;
    const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(
      new RegExp(`(^|[\\s("'\`])${escaped}(?=$|[\\s:)"'\`,;]|\\/)`, "gm"),
      (_m, lead: string) => `${lead}${to}`,
    );
  }
  return out;
}

/** Root-relative paths among a call's arguments, each with how it is shown. */
export function argumentPaths(args: Record<string, unknown>, show: (rel: string) => string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const key of ["path", "working_dir"]) {
    const v = args[key];
    if (typeof v !== "string" || v === "" || v.startsWith("/")) continue;
    const bare = v.replace(/:(\d+)(-\d+)?$/, ""); // open's path:LINE
    for (const p of new Set([v, bare])) out.push([p, show(p)]);
  }
  return out;
}

interface GrepArgs {
  pattern?: string;
  ignore_case?: boolean;
  fixed_strings?: boolean;
  multiline?: boolean;
}

/**
 * Where the pattern matches in each of `lines`, as [start, end) character
 * ranges, asking ripgrep itself (the pattern is Rust regex syntax, not
 * JavaScript's). Lines it cannot describe get no ranges.
 */
export function matchRanges(rg: string, lines: string[], args: GrepArgs): Array<Array<[number, number]>> {
  const ranges: Array<Array<[number, number]>> = lines.map(() => []);
  if (!args.pattern || lines.length === 0 || args.multiline) return ranges;
  const flags = [
    "--json",
    "--no-config",
    ...(args.ignore_case ? ["--ignore-case"] : []),
    ...(args.fixed_strings ? ["--fixed-strings"] : []),
    "--regexp",
    args.pattern,
    "-",
  ];
  const r = spawnSync(rg, flags, { input: `${lines.join("\n")}\n`, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0 || typeof r.stdout !== "string") return ranges;
  for (const row of r.stdout.split("\n")) {
    if (!row.startsWith('{"type":"match"')) continue;
    let ev: {
      data?: { line_number?: number; lines?: { text?: string }; submatches?: Array<{ start: number; end: number }> };
    };
    try {
      ev = JSON.parse(row);
    } catch {
      continue;
    }
    const n = (ev.data?.line_number ?? 0) - 1;
    const text = ev.data?.lines?.text;
    if (n < 0 || n >= lines.length || typeof text !== "string") continue;
    // Byte offsets into the line's UTF-8 text, as character offsets.
    const bytes = Buffer.from(text, "utf8");
    for (const m of ev.data?.submatches ?? []) {
      const start = bytes.subarray(0, m.start).toString("utf8").length;
      const end = bytes.subarray(0, m.end).toString("utf8").length;
      if (end > start) ranges[n].push([start, end]);
    }
  }
  return ranges;
}

function paint(text: string, ranges: Array<[number, number]>, color: (s: string) => string): string {
  if (ranges.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue;
    out += text.slice(at, s) + color(text.slice(s, e));
    at = e;
  }
  return out + text.slice(at);
}

const TRAILER = /^(\.\.\. |\(|no matches for |no files match)/;

function grepContent(result: ToolResult, args: GrepArgs, screen: Screen, single: boolean): string {
  const p = screen.palette;
  const files = [...new Set(((result.matches as Array<{ file: string }> | undefined) ?? []).map((m) => m.file))].sort(
    (a, b) => b.length - a.length,
  );
  const rows = result.output.split("\n");
  type Row = { prefix: string; sep: string; text: string; isMatch: boolean } | { other: string };
  const parsed: Row[] = rows.map((line) => {
    if (line === "--" || TRAILER.test(line)) return { other: line };
    let rest = line;
    let prefix = "";
    if (!single) {
      const file = files.find((f) => line.startsWith(f) && (line[f.length] === ":" || line[f.length] === "-"));
      if (!file) return { other: line };
      prefix = p.path(screen.show(file));
      rest = line.slice(file.length);
    }
    const m = /^([:-])?(\d+)([:-])(\[LID:[a-z0-9]+\]:)? ?/.exec(rest);
    if (!m) return { other: line };
    const sep = m[3];
    const num = `${m[1] ?? ""}${p.lineNumber(m[2])}${sep}`;
    const id = m[4] ? p.dim(m[4]) : "";
    return { prefix: `${prefix}${num}${id}`, sep, text: rest.slice(m[0].length), isMatch: sep === ":" };
  });
  const matchRows = parsed.filter((r): r is Extract<Row, { text: string }> => "text" in r && r.isMatch);
  const ranges = screen.highlight
    ? matchRanges(
        screen.highlight,
        matchRows.map((r) => r.text),
        args,
      )
    : [];
  let k = 0;
  return parsed
    .map((r) => {
      if ("other" in r)
        return r.other === "--"
          ? p.dim("--")
          : TRAILER.test(r.other)
            ? p.dim(
                relabel(
                  r.other,
                  files.map((f) => [f, screen.show(f)]),
                ),
              )
            : r.other;
      const text = r.isMatch ? paint(r.text, ranges[k++] ?? [], p.match) : r.text;
      return `${r.prefix} ${text}`;
    })
    .join("\n");
}

/** The result's output as the CLI prints it (without the final newline). */
export function displayOutput(tool: string, args: Record<string, unknown>, result: ToolResult, screen: Screen): string {
  const p = screen.palette;
  const out = result.output;
  const pairs = argumentPaths(args, screen.show);
  switch (tool) {
    case "open":
    case "scroll": {
      const rel = typeof result.path === "string" ? result.path : undefined;
      return out
        .split("\n")
        .map((line, i) => {
          if (i === 0 && rel !== undefined && line.startsWith(`--- ${rel} (`))
            return p.bold(`--- ${p.path(screen.show(rel))} ${line.slice(5 + rel.length)}`);
          const m = /^(\d+):( |$)/.exec(line);
          if (m) return `${p.lineNumber(m[1])}:${line.slice(m[1].length + 1)}`;
          return p.dim(relabel(line, pairs));
        })
        .join("\n");
    }
    case "read":
      return out
        .split("\n")
        .map((line) => {
          const m = /^(\s*\d+): (\[LID:[a-z0-9]+\] )?/.exec(line);
          if (m)
            return `${p.lineNumber(line.slice(0, line.indexOf(":")))}: ${m[2] ? p.dim(m[2]) : ""}${line.slice(m[0].length)}`;
          return p.dim(
            relabel(line, typeof result.path === "string" ? [[result.path, screen.show(result.path)]] : pairs),
          );
        })
        .join("\n");
    case "grep":
    case "grep_file": {
      // grep given a file prints its lines without the file's name, as grep-file does.
      const matches = (result.matches as Array<{ file: string }> | undefined) ?? [];
      const target = typeof args.path === "string" ? args.path : undefined;
      const single =
        tool === "grep_file" ||
        (target !== undefined &&
          matches.length > 0 &&
          matches.every((m) => m.file === target) &&
          !out.startsWith(`${target}:`) &&
          !out.startsWith(`${target}-`));
      if (Array.isArray(result.files)) {
        const set = new Set(result.files as string[]);
        return out
          .split("\n")
          .map((l) =>
            set.has(l)
              ? p.path(screen.show(l))
              : p.dim(
                  relabel(
                    l,
                    (result.files as string[]).map((f) => [f, screen.show(f)]),
                  ),
                ),
          )
          .join("\n");
      }
      if (Array.isArray(result.counts)) {
        const counts = result.counts as Array<{ file: string; count: number }>;
        return out
          .split("\n")
          .map((l) => {
            const c = counts.find((x) => l === `${x.file}:${x.count}`);
            return c
              ? `${p.path(screen.show(c.file))}:${c.count}`
              : p.dim(
                  relabel(
                    l,
                    counts.map((x) => [x.file, screen.show(x.file)]),
                  ),
                );
          })
          .join("\n");
      }
      return grepContent(result, args as GrepArgs, screen, single);
    }
    case "find": {
      const files = new Set((result.files as string[] | undefined) ?? []);
      return out
        .split("\n")
        .map((l) => (files.has(l) ? p.path(screen.show(l)) : p.dim(relabel(l, pairs))))
        .join("\n");
    }
    case "ls": {
      const rel = typeof result.path === "string" ? result.path : ".";
      return out
        .split("\n")
        .map((l, i) => {
          if (args.tree === true && i === 0)
            return p.bold(rel === "." ? `${screen.show(".")}/` : `${screen.show(rel)}/`);
          const dir = /(^|[ ─])([^ ]+\/)$/.exec(l);
          if (dir) return l.slice(0, l.length - dir[2].length) + p.directory(dir[2]);
          const link = / -> /.exec(l);
          if (link) return `${l.slice(0, link.index)}${p.link(l.slice(link.index))}`;
          return l.startsWith("(") || l.startsWith("...") ? p.dim(relabel(l, [[rel, screen.show(rel)]])) : l;
        })
        .join("\n");
    }
    default:
      return relabel(out, pairs);
  }
}

/** A tool's error message with its paths shown as the user gave them. */
export function displayError(args: Record<string, unknown>, result: ToolResult, screen: Screen): string {
  return relabel(result.error ?? "failed", argumentPaths(args, screen.show));
}
