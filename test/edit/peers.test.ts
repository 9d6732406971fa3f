// Peers' own edit-matching test cases, run through rt's `edit` / `multi_edit`
// (issue 10). The cases are data transcribed from the peers' repositories
// (test/fixtures/peers/*.json: repository, commit, test file and test name for
// each), never their code. rt must agree with each peer's expected outcome,
// or the disagreement must be listed, with a one-line verdict, in
// test/fixtures/peers/DISAGREEMENTS.md; a row that no longer disagrees must be
// removed. So rt never writes something different from what a peer's test
// expects without a written reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { setWindowedEditFromBytes } from "../../src/workspace/applyEdit.ts";
import { soak } from "../helpers.ts";

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "peers");

interface PeerCase {
  name: string;
  path?: string;
  file: string;
  edits: Array<{ old: string; new: string; replaceAll?: boolean }>;
  expect: { result: string } | { error: true } | { contains: string[] };
  note?: string;
}
interface PeerFile {
  peer: string;
  repo: string;
  commit: string;
  sources: string[];
  cases: PeerCase[];
}

/** What rt did with a case. */
type Outcome = { wrote: string } | { refused: string };
/** How it compares with the peer's expectation. */
export type Kind = "agree" | "different" | "refused" | "applied";

async function runRt(c: PeerCase, root: string, rel = c.path ?? "file.txt"): Promise<Outcome> {
  const dir = fs.mkdtempSync(path.join(root, "case-"));
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), c.file);
  const ws = createWorkspace({ root: dir, env: {}, state: false });
  const r =
    c.edits.length === 1
      ? await callTool(ws, "edit", {
          path: rel,
          old_string: c.edits[0].old,
          new_string: c.edits[0].new,
          ...(c.edits[0].replaceAll ? { replace_all: true } : {}),
        })
      : await callTool(ws, "multi_edit", {
          path: rel,
          edits: c.edits.map((e) => ({
            old_string: e.old,
            new_string: e.new,
            ...(e.replaceAll ? { replace_all: true } : {}),
          })),
        });
  const after = fs.readFileSync(path.join(dir, rel), "utf8");
  const res = r as { success: boolean; error?: string; changed?: boolean };
  if (!res.success) return { refused: res.error ?? "" };
  // "No change" (already applied) is a refusal to write.
  if (after === c.file && res.changed === false) return { refused: "no change" };
  return { wrote: after };
}

function compare(c: PeerCase, o: Outcome): Kind {
  const e = c.expect;
  if ("error" in e) return "wrote" in o ? "applied" : "agree";
  if (!("wrote" in o)) return "refused";
  if ("result" in e) return o.wrote === e.result ? "agree" : "different";
  return e.contains.every((s) => o.wrote.includes(s)) ? "agree" : "different";
}

/** Rows of DISAGREEMENTS.md: | peer file | case name | kind | verdict | */
function listed(): Map<string, { kind: string; verdict: string }> {
  const rows = new Map<string, { kind: string; verdict: string }>();
  for (const line of fs.readFileSync(path.join(DIR, "DISAGREEMENTS.md"), "utf8").split("\n")) {
    const cells = line.split(" | ").map((s) => s.replace(/^\|\s*|\s*\|$/g, "").trim());
    if (cells.length < 4 || cells[0] === "peer" || /^-+$/.test(cells[0])) continue;
    const name = cells[1].replace(/\\\|/g, "|");
    rows.set(`${cells[0]}\u0000${name}`, { kind: cells[2], verdict: cells.slice(3).join(" | ") });
  }
  return rows;
}

test("peers' edit-matching cases: rt agrees, or the disagreement is listed with a verdict", async () => {
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .sort();
  assert.ok(files.length >= Number(process.env.RT_PEERS_MIN ?? 6), "fixtures of at least six peers");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-peers-"));
  const rows = listed();
  const seen = new Set<string>();
  const problems: string[] = [];
  const summary: string[] = [];
  // RT_PEERS_REPORT=file.json writes every disagreement in full, for writing verdicts.
  const report: unknown[] = [];
  let total = 0;
  try {
    for (const f of files) {
      const data = JSON.parse(fs.readFileSync(path.join(DIR, f), "utf8")) as PeerFile;
      const peer = f.replace(/\.json$/, "");
      assert.ok(data.repo && data.commit && data.sources.length > 0, `${f}: provenance (repo, commit, sources)`);
      const counts: Record<Kind, number> = { agree: 0, different: 0, refused: 0, applied: 0 };
      const names = new Set<string>();
      for (const c of data.cases) {
        assert.ok(!names.has(c.name), `${f}: duplicate case name ${c.name}`);
        names.add(c.name);
        total++;
        const outcome = await runRt(c, root);
        const kind = compare(c, outcome);
        counts[kind]++;
        if (kind === "agree") continue;
        report.push({ peer, kind, case: c, outcome });
        const key = `${peer}\u0000${c.name}`;
        seen.add(key);
        const row = rows.get(key);
        const what =
          "wrote" in outcome
            ? `rt wrote ${JSON.stringify(outcome.wrote).slice(0, 300)}`
            : `rt refused: ${outcome.refused.split("\n")[0].slice(0, 200)}`;
        if (!row)
          problems.push(
            `unlisted ${kind}: ${peer} | ${c.name}\n    ${what}\n    peer expects ${JSON.stringify(c.expect).slice(0, 300)}`,
          );
        else if (row.kind !== kind)
          problems.push(`listed as ${row.kind}, now ${kind}: ${peer} | ${c.name}\n    ${what}`);
        else if (row.verdict.length < 10) problems.push(`no verdict: ${peer} | ${c.name}`);
      }
      summary.push(
        `${peer}: ${data.cases.length} cases, ${counts.agree} agree, ${counts.different} written differently, ${counts.refused} refused where the peer applies, ${counts.applied} applied where the peer refuses`,
      );
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  for (const key of rows.keys())
    if (!seen.has(key))
      problems.push(`stale row (rt now agrees, or the case is gone): ${key.replace("\u0000", " | ")}`);
  if (process.env.RT_PEERS_SUMMARY) console.log(summary.join("\n"));
  if (process.env.RT_PEERS_REPORT) fs.writeFileSync(process.env.RT_PEERS_REPORT, JSON.stringify(report, null, 1));
  assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}\n\n${summary.join("\n")}`);
  assert.ok(total >= 250, `${total} cases`);
});

test("peers' single-edit cases give the same outcome through a large file's window as through the whole file", async () => {
  // The window path (files over 8 MB: an exact old_string found once in the bytes is planned from the
  // lines around it) forced on every case; as a plain-text file, which neither path syntax-checks.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rt-peers-window-"));
  // Every second single-edit case in `npm test` (alternating through the sorted files), every case in the
  // soak run.
  const step = soak(2, 1);
  let single = 0;
  let compared = 0;
  const problems: string[] = [];
  try {
    for (const f of fs
      .readdirSync(DIR)
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const data = JSON.parse(fs.readFileSync(path.join(DIR, f), "utf8")) as PeerFile;
      for (const c of data.cases) {
        if (c.edits.length !== 1 || single++ % step !== 0) continue;
        const whole = await runRt(c, root, "file.txt");
        const restore = setWindowedEditFromBytes(0);
        let windowed: Outcome;
        try {
          windowed = await runRt(c, root, "file.txt");
        } finally {
          restore();
        }
        compared++;
        if (JSON.stringify(whole) !== JSON.stringify(windowed))
          problems.push(
            `${f} | ${c.name}: whole ${JSON.stringify(whole).slice(0, 200)}, window ${JSON.stringify(windowed).slice(0, 200)}`,
          );
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  assert.deepEqual(problems, []);
  assert.ok(compared >= 100 / step, `${compared} cases compared`);
});
