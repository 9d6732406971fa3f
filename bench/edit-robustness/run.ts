// The edit-robustness benchmark: generates cases from real source files,
// runs every method on each, and reports per mistake class and method how
// many edits were applied correctly, rejected with an error, or applied
// wrongly. Writes RESULTS.md next to this file and prints the table.
//
//   node bench/edit-robustness/run.mjs [--per-class N] [--seed S] [--verbose] [--no-write] [--summary-json]
//
// --summary-json prints one JSON line instead of the report (bench/run.mjs reads it).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  BEST_EFFORT,
  type EditCase,
  MISTAKES,
  MISTAKE_NOTES,
  type Mistake,
  UNRECOVERABLE,
  generateCases,
} from "./cases.ts";
import { loadCorpus } from "./corpus.ts";
import { METHODS, appliesTo, cleanup, recoverableBy } from "./methods.ts";
import { stopNativeCheckers } from "../../src/edit/nativeCheck.ts";
import { validateEdit } from "../../src/edit/validate.ts";
import { Rng } from "./rng.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");

interface Args {
  perClass: number;
  seed: number;
  files: number;
  verbose: boolean;
  write: boolean;
  summaryJson: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { perClass: 120, seed: 20240603, files: 160, verbose: false, write: true, summaryJson: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    if (v === "--per-class") a.perClass = Number(argv[++i]);
    else if (v === "--seed") a.seed = Number(argv[++i]);
    else if (v === "--files") a.files = Number(argv[++i]);
    else if (v === "--verbose") a.verbose = true;
    else if (v === "--no-write") a.write = false;
    else if (v === "--summary-json") a.summaryJson = true;
    else throw new Error(`unknown argument ${v}`);
  }
  return a;
}

type Verdict = "correct" | "rejected" | "wrong";

interface Tally {
  correct: number;
  rejected: number;
  wrong: number;
  details: Map<string, number>;
}

const newTally = (): Tally => ({ correct: 0, rejected: 0, wrong: 0, details: new Map() });

function judge(c: EditCase, result: { ok: boolean; text?: string }): Verdict {
  if (!result.ok) return "rejected";
  return result.text === c.intended ? "correct" : "wrong";
}

function pct(n: number, d: number): string {
  return d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`;
}

function firstDiff(a: string, b: string): string {
  const al = a.split("\n");
  const bl = b.split("\n");
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i])
      return `line ${i + 1}:\n    got:      ${JSON.stringify(al[i])}\n    intended: ${JSON.stringify(bl[i])}`;
  }
  return "(no difference)";
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const rng = new Rng(args.seed);
  const files = loadCorpus(rng, REPO, args.files / 2);
  const generated = generateCases(files, rng, args.perClass);
  // The generator's intended edits are mechanical (a probe line inserted after a block opener
  // at the opener's indentation, say) and some break the file: rt rightly refuses those, so
  // they say nothing about recovering intent. They are left out, and counted.
  const cases: typeof generated = [];
  const invalidIntended = new Map<string, number>();
  for (const c of generated) {
    if (c.recoverable) {
      const v = await validateEdit(c.file, c.text, c.intended);
      if (v.introduced.length > 0) {
        invalidIntended.set(c.mistake, (invalidIntended.get(c.mistake) ?? 0) + 1);
        continue;
      }
    }
    cases.push(c);
  }
  const tGen = performance.now() - t0;

  const methods = Object.keys(METHODS);
  const tallies = new Map<string, Tally>(); // `${method}|${mistake}`
  const timing = new Map<string, { total: number; max: number; maxCase: string }>();
  const examples: string[] = [];
  /** Per method: recoverable cases (outside the best-effort classes) and how many of them came out correct. */
  const recoverable = new Map<string, { n: number; correct: number }>();
  for (const m of methods) {
    const rec = { n: 0, correct: 0 };
    recoverable.set(m, rec);
    timing.set(m, { total: 0, max: 0, maxCase: "" });
    for (const c of cases) {
      if (!appliesTo(m, c)) continue;
      const t = performance.now();
      let r;
      try {
        r = await METHODS[m](c);
      } catch (e) {
        r = { ok: false as const, error: `threw: ${(e as Error).stack}`, detail: "threw" };
      }
      const dt = performance.now() - t;
      const tm = timing.get(m)!;
      tm.total += dt;
      if (dt > tm.max) Object.assign(tm, { max: dt, maxCase: `${c.id} (${c.file})` });
      const v = judge(c, r);
      if (recoverableBy(m, c) && !BEST_EFFORT.has(c.mistake)) {
        rec.n++;
        if (v === "correct") rec.correct++;
      }
      const key = `${m}|${c.mistake}`;
      const tally = tallies.get(key) ?? newTally();
      tallies.set(key, tally);
      tally[v]++;
      const d = `${v}:${r.detail ?? ""}`;
      tally.details.set(d, (tally.details.get(d) ?? 0) + 1);
      const interesting = v === "wrong" || (v === "rejected" && recoverableBy(m, c) && !BEST_EFFORT.has(c.mistake));
      if (interesting && (args.verbose || examples.length < 30)) {
        examples.push(
          `[${m}] ${v} ${c.id} ${c.file}:${c.targetStart}-${c.targetEnd} (${r.detail ?? ""})\n` +
            `  old: ${JSON.stringify(c.edit.oldString).slice(0, 400)}\n  new: ${JSON.stringify(c.edit.newString).slice(0, 400)}\n` +
            (r.ok ? `  ${firstDiff(r.text, c.intended)}` : `  error: ${r.error.split("\n").join("\n         ")}`),
        );
      }
    }
  }
  const tRun = performance.now() - t0 - tGen;

  // ---- report
  const langs = new Map<string, number>();
  for (const f of files) langs.set(f.lang, (langs.get(f.lang) ?? 0) + 1);
  const lines: string[] = [];
  lines.push("# Edit robustness");
  lines.push("");
  lines.push(
    `Generated by \`node bench/edit-robustness/run.mjs\` (seed ${args.seed}): ${cases.length} cases on ${files.length} real files ` +
      `(${[...langs].map(([l, n]) => `${n} ${l}`).join(", ")}; Python standard library and JS/TS from node_modules).`,
  );
  lines.push(
    "Each case is an intended edit of a unique target region plus the call a model makes for it, with one class of mistake.",
  );
  lines.push(
    "**correct**: the file equals the intended result byte for byte; **rejected**: the method returned an error and changed nothing; **wrong**: anything else.",
  );
  lines.push("Targets: wrong = 0 everywhere; correct ≥ 97% wherever the intent is recoverable.");
  lines.push("");
  for (const m of methods) {
    lines.push(`## ${m}`);
    lines.push("");
    lines.push("| mistake | cases | correct | rejected | wrong | what the method did |");
    lines.push("|---|---:|---:|---:|---:|---|");
    const { n: recN, correct: recOk } = recoverable.get(m)!;
    let wrong = 0;
    for (const mistake of MISTAKES) {
      const t = tallies.get(`${m}|${mistake}`);
      if (!t) continue;
      const n = t.correct + t.rejected + t.wrong;
      const label = UNRECOVERABLE.has(mistake)
        ? `${mistake} (must reject)`
        : BEST_EFFORT.has(mistake)
          ? `${mistake} (best effort)`
          : mistake;
      const det = [...t.details.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k.replace(/:$/, "")} ${v}`)
        .join(", ");
      lines.push(
        `| ${label} | ${n} | ${t.correct} (${pct(t.correct, n)}) | ${t.rejected} (${pct(t.rejected, n)}) | ${t.wrong} | ${det} |`,
      );
      wrong += t.wrong;
    }
    const tm = timing.get(m)!;
    lines.push("");
    lines.push(
      `Recoverable cases (all classes but "must reject" and "best effort"): ${recOk}/${recN} correct (${pct(recOk, recN)}). ` +
        `Applied wrongly: ${wrong}. Time: ${tm.total.toFixed(0)} ms total, ${(tm.total / cases.length).toFixed(2)} ms per case, slowest ${tm.max.toFixed(1)} ms (${tm.maxCase}).`,
    );
    lines.push("");
  }
  lines.push("## Mistake classes");
  lines.push("");
  for (const mistake of MISTAKES) lines.push(`- **${mistake}**: ${MISTAKE_NOTES[mistake as Mistake]}`);
  lines.push("");
  const dropped = [...invalidIntended].map(([m, n]) => `${m} ${n}`).join(", ");
  if (dropped)
    lines.push(
      `Left out: generated cases whose intended result itself adds a syntax error (rt refuses those by design): ${dropped}.`,
      "",
    );
  lines.push(`Generation took ${(tGen / 1000).toFixed(1)} s, running ${(tRun / 1000).toFixed(1)} s.`);
  const report = lines.join("\n") + "\n";
  if (args.write) fs.writeFileSync(path.join(HERE, "RESULTS.md"), report);
  if (args.summaryJson) {
    const summary: Record<string, { cases: number; recoverable: number; correct: number; wrong: number }> = {};
    for (const m of methods) {
      let wrong = 0;
      for (const mistake of MISTAKES) wrong += tallies.get(`${m}|${mistake}`)?.wrong ?? 0;
      const rec = recoverable.get(m)!;
      summary[m] = { cases: cases.length, recoverable: rec.n, correct: rec.correct, wrong };
    }
    // Per class and method, for BENCHMARKS.md (bench/run.mjs puts it in its own section).
    const table = ["| mistake | " + methods.join(" | ") + " |", "|---|" + methods.map(() => "---|").join("")];
    for (const mistake of MISTAKES) {
      const cells = methods.map((m) => {
        const t = tallies.get(`${m}|${mistake}`);
        return t ? `${t.correct} / ${t.rejected} / ${t.wrong}` : "-";
      });
      const label = UNRECOVERABLE.has(mistake)
        ? `${mistake} (must reject)`
        : BEST_EFFORT.has(mistake)
          ? `${mistake} (best effort)`
          : mistake;
      table.push(`| ${label} | ${cells.join(" | ")} |`);
    }
    process.stdout.write(JSON.stringify({ seed: args.seed, methods: summary, perClassTable: table.join("\n") }) + "\n");
    return;
  }
  process.stdout.write(report);
  if (examples.length) {
    process.stdout.write(
      `\n## Examples of rejected-but-recoverable and wrong cases (${examples.length} shown)\n\n` +
        examples.join("\n\n") +
        "\n",
    );
  }
}

main().finally(() => {
  cleanup();
  stopNativeCheckers();
});
