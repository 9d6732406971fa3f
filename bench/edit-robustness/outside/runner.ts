// Runs the outside check's cases through rt's real tools (in process: the
// registry, the policy, the edit pipeline with its checks, real files in a
// scratch directory) and judges each result against the intended bytes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createWorkspace } from "../../../src/workspace/workspace.ts";
import { callTool } from "../../../src/tools/policy.ts";
import type { OCase } from "./cases.ts";
import { judgeSyntax, movedLines, type Verdict } from "./oracles.ts";

export type Judgement = "correct" | "refused" | "wrong";

export interface Outcome {
  c: OCase;
  judgement: Judgement;
  /** rt's result: the tier, or the refusal's reason / first line. */
  detail: string;
  /** For a wrong write: what was written, and what the judges say of it. */
  written?: Buffer;
  writtenSyntax?: Verdict;
  movedLines?: number[];
}

const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "rt-outside-"));
let serial = 0;

type Result = { success: boolean; error?: string; reason?: string; tier?: string };

export async function runCase(c: OCase): Promise<Outcome> {
  const dir = path.join(ROOT, String(serial++));
  fs.mkdirSync(dir);
  const file = path.join(dir, c.base);
  fs.writeFileSync(file, c.bytes);
  try {
    const ws = createWorkspace({ root: dir, env: {}, state: false });
    if (c.readFirst) await callTool(ws, "read", { path: c.base });
    const r = (await callTool(ws, c.tool, { path: c.base, ...c.args })) as Result;
    const after = fs.readFileSync(file);
    if (!r.success) {
      if (!after.equals(c.bytes))
        return { c, judgement: "wrong", detail: `refused but the file changed: ${firstLine(r.error)}`, written: after };
      return { c, judgement: "refused", detail: r.reason ?? firstLine(r.error) };
    }
    if (c.intended !== null && after.equals(c.intended)) return { c, judgement: "correct", detail: r.tier ?? "" };
    return {
      c,
      judgement: "wrong",
      detail:
        c.intended === null ? `applied (${r.tier ?? ""}) where it must refuse` : `wrote other bytes (${r.tier ?? ""})`,
      written: after,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const firstLine = (s: string | undefined): string => (s ?? "").split("\n")[0].slice(0, 160);

export interface Prepared {
  cases: OCase[];
  /** Cases left out because their intended result broke what the language's parser accepted before (generator artefacts). */
  invalidIntended: Array<{ c: OCase; why: string }>;
}

/**
 * Keeps the cases whose intended result is itself sound: it parses wherever the
 * file parsed before (by the language's own parser), and no untouched line
 * changes its enclosing lines (the structure judge). The rest are generator
 * artefacts (a line inserted where the language does not allow one), counted.
 */
export function prepare(cases: OCase[]): Prepared {
  const reqs = cases.flatMap((c) => [
    { lang: c.lang, src: c.before },
    { lang: c.lang, src: c.intendedText ?? c.before },
  ]);
  const v = judgeSyntax(reqs);
  const kept: OCase[] = [];
  const invalid: Prepared["invalidIntended"] = [];
  cases.forEach((c, i) => {
    const before = v[2 * i];
    const intended = v[2 * i + 1];
    if (c.intendedText !== null && before === null && typeof intended === "string") {
      invalid.push({ c, why: `intended does not parse: ${intended}` });
      return;
    }
    if (c.intendedText !== null) {
      const moved = movedLines(c.before, c.intendedText);
      if (moved.length > 0) {
        invalid.push({ c, why: `intended moves untouched line ${moved[0]} (structure judge)` });
        return;
      }
    }
    kept.push(c);
  });
  return { cases: kept, invalidIntended: invalid };
}

/** Adds the judges' view of every wrong write (does it parse? did untouched lines move?). */
export function explainWrong(outcomes: Outcome[]): void {
  const wrong = outcomes.filter((o) => o.judgement === "wrong" && o.written);
  const text = (b: Buffer) =>
    b
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .replace(/\r\n/g, "\n");
  const v = judgeSyntax(wrong.map((o) => ({ lang: o.c.lang, src: text(o.written!) })));
  wrong.forEach((o, i) => {
    o.writtenSyntax = v[i];
    o.movedLines = movedLines(o.c.before, text(o.written!));
  });
}

/** The first differing line of two texts, for reports. */
export function firstDifference(got: Buffer, want: Buffer | null): string {
  if (want === null) return "(must be refused)";
  const a = got.toString("utf8").split("\n");
  const b = want.toString("utf8").split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `line ${i + 1}: got ${JSON.stringify(a[i]?.slice(0, 160))}, intended ${JSON.stringify(b[i]?.slice(0, 160))}`;
  }
  return "(same lines; bytes differ)";
}

export interface Tally {
  cases: number;
  correct: number;
  refused: number;
  wrong: number;
  /** Refusals of cases that must be refused. */
  mustRefuse: number;
}

export function tally(outcomes: Outcome[]): Map<string, Tally> {
  const m = new Map<string, Tally>();
  for (const o of outcomes) {
    const t = m.get(o.c.cls) ?? { cases: 0, correct: 0, refused: 0, wrong: 0, mustRefuse: 0 };
    t.cases++;
    t[o.judgement]++;
    if (o.judgement === "refused" && o.c.intended === null) t.mustRefuse++;
    m.set(o.c.cls, t);
  }
  return m;
}

export function cleanupRunner(): void {
  fs.rmSync(ROOT, { recursive: true, force: true });
}
