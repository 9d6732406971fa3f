// The outside check's judges, none of them rt's code:
//   - syntax, by each language's own parser: CPython's compile() (Python),
//     PyYAML's safe_load_all (YAML), tomllib (TOML), V8 (JavaScript: the
//     parser `node --check` runs, in one child process, script then module),
//     TypeScript's own parser (TS, .d.ts), JSON.parse (JSON);
//   - structure, by indentation (text.ts, ancestorChains): each untouched
//     line keeps the same enclosing lines.
// C, Java, Go, Rust and HTML have no syntax judge here (their compilers need
// headers, modules or toolchains this machine lacks): those cases are judged
// by the exact intended bytes and the structure check alone.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { diffArrays } from "diff";
import type { OLang } from "./corpus.ts";
import { ancestorChains } from "./text.ts";

/** null: parses; a string: the parser's complaint; undefined: no judge for this language. */
export type Verdict = string | null | undefined;

const PY_SCRIPT = String.raw`
import sys, json, warnings
warnings.simplefilter("ignore")
try:
    import yaml
except Exception:
    yaml = None
try:
    import tomllib
except Exception:
    tomllib = None
out = []
for line in sys.stdin:
    req = json.loads(line)
    src, kind = req["src"], req["kind"]
    try:
        if kind == "py":
            compile(src, "f.py", "exec", dont_inherit=True)
        elif kind == "yaml":
            if yaml is None:
                out.append({"na": True}); continue
            list(yaml.safe_load_all(src))
        elif kind == "toml":
            if tomllib is None:
                out.append({"na": True}); continue
            tomllib.loads(src)
        out.append({"ok": True})
    except Exception as e:
        out.append({"err": type(e).__name__ + ": " + str(e)[:200]})
print(json.dumps(out))
`;

const JS_SCRIPT = String.raw`
const vm = require("node:vm");
let data = "";
process.stdin.on("data", (d) => (data += d));
process.stdin.on("end", () => {
  const out = [];
  for (const line of data.split("\n")) {
    if (!line) continue;
    const { src, kind } = JSON.parse(line);
    const code = src.startsWith("#!") ? "//" + src.slice(2) : src;
    let err = null;
    const asScript = () => vm.compileFunction(code, ["exports", "require", "module", "__filename", "__dirname"]);
    const asModule = () => new vm.SourceTextModule(code);
    try {
      if (kind === "mjs") asModule();
      else {
        try { asScript(); } catch (e) { asModule(); }
      }
    } catch (e) {
      err = String(e && e.message || e).slice(0, 200);
    }
    out.push(err === null ? { ok: true } : { err });
  }
  process.stdout.write(JSON.stringify(out));
});
`;

export interface OracleRequest {
  lang: OLang;
  src: string;
}

const req = createRequire(import.meta.url);
let ts: typeof import("typescript") | undefined;

/** Every request's verdict, in order (a few child processes for the whole batch). */
export function judgeSyntax(requests: OracleRequest[]): Verdict[] {
  const out: Verdict[] = new Array(requests.length).fill(undefined);
  const py: number[] = [];
  const js: number[] = [];
  requests.forEach((r, i) => {
    if (r.lang === "py" || r.lang === "yaml" || r.lang === "toml") py.push(i);
    else if (r.lang === "js" || r.lang === "mjs") js.push(i);
    else if (r.lang === "json") {
      try {
        JSON.parse(r.src);
        out[i] = null;
      } catch (e) {
        out[i] = String((e as Error).message);
      }
    } else if (r.lang === "ts" || r.lang === "dts") {
      ts ??= req("typescript") as typeof import("typescript");
      const sf = ts.createSourceFile(
        r.lang === "dts" ? "f.d.ts" : "f.ts",
        r.src,
        ts.ScriptTarget.Latest,
        false,
        ts.ScriptKind.TS,
      );
      const diags = (sf as unknown as { parseDiagnostics: Array<{ messageText: unknown }> }).parseDiagnostics;
      out[i] =
        diags.length === 0
          ? null
          : String(typeof diags[0].messageText === "string" ? diags[0].messageText : "parse error");
    }
  });
  const run = (cmd: string, args: string[], idx: number[]): void => {
    if (idx.length === 0) return;
    const input = idx.map((i) => JSON.stringify({ src: requests[i].src, kind: requests[i].lang })).join("\n") + "\n";
    const r = spawnSync(cmd, args, { input, encoding: "utf8", maxBuffer: 1 << 28 });
    if (r.status !== 0) return; // judge unavailable: undefined verdicts
    const res = JSON.parse(r.stdout) as Array<{ ok?: true; err?: string; na?: true }>;
    idx.forEach((i, k) => (out[i] = res[k].na ? undefined : res[k].ok ? null : (res[k].err ?? "error")));
  };
  run("python3", ["-c", PY_SCRIPT], py);
  run(process.execPath, ["--experimental-vm-modules", "--no-warnings", "-e", JS_SCRIPT], js);
  return out;
}

/**
 * Untouched lines whose enclosing lines (by indentation) differ between
 * `before` and `after`, paired by a line diff: for each, its 1-based line in
 * `after`. `region` (0-based lines of before, [start, end)) is the part the
 * edit meant to change: ancestors inside it are the edit's own.
 */
export function movedLines(before: string, after: string): number[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const ca = ancestorIndexes(a);
  const cb = ancestorIndexes(b);
  // Pair unchanged lines.
  const toB = new Map<number, number>();
  let i = 0;
  let j = 0;
  for (const ch of diffArrays(a, b)) {
    if (ch.added) j += ch.count!;
    else if (ch.removed) i += ch.count!;
    else for (let k = 0; k < ch.count!; k++) toB.set(i++, j++);
  }
  const pairedB = new Set(toB.values());
  const moved: number[] = [];
  for (const [x, y] of toB) {
    const ax = ca[x];
    const by = cb[y];
    if (ax === null || by === null) continue;
    // Ancestors outside the changed text must be the same lines; ancestors on changed lines are the edit's.
    const mapped = ax.map((p) => (toB.has(p) ? toB.get(p)! : -1));
    const keptA = mapped.filter((p) => p !== -1);
    const keptB = by.filter((p) => pairedB.has(p));
    if (keptA.join(",") !== keptB.join(",")) moved.push(y + 1);
  }
  return moved;
}

function ancestorIndexes(lines: string[]): Array<number[] | null> {
  const chains = ancestorChains(lines);
  // The same walk as ancestorChains, keeping line indexes instead of texts.
  const stack: Array<{ w: number; i: number }> = [];
  const width = (s: string): number => {
    let w = 0;
    for (const ch of /^[ \t]*/.exec(s)![0]) w = ch === "\t" ? w + 8 - (w % 8) : w + 1;
    return w;
  };
  return lines.map((l, i) => {
    if (chains[i] === null) return null;
    const w = width(l);
    while (stack.length > 0 && stack[stack.length - 1].w >= w) stack.pop();
    const chain = stack.map((s) => s.i);
    stack.push({ w, i });
    return chain;
  });
}
