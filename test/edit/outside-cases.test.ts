// The outside check, small run (the large one: node bench/edit-robustness/outside/run.mjs).
// Generated edit cases on real files nobody on this project wrote (Python's
// standard library, node_modules outside the main benchmark's packages, JSON,
// YAML, TOML, HTML, C, Java, Go, Rust found on this machine), with mistake
// models the engine was not written against, each with an intended result the
// generator defines from the file's true lines (bench/edit-robustness/outside/
// cases.ts). The invariant: rt writes exactly the intended bytes, or refuses
// and leaves the file as it was; a case that must be refused is refused. The
// intended results themselves are checked by the languages' own parsers
// (python3 compile(), PyYAML, tomllib, V8, TypeScript's parser, JSON.parse) and
// an indentation structure check, none of them rt's.
//
// RT_OUTSIDE_SEED=n runs another sample (the default seed is fixed so that a
// failure reproduces); RT_OUTSIDE_PER_CLASS=n a larger one. `npm test` takes 2
// cases per mistake class from 24 Python and 24 JavaScript/TypeScript files;
// the soak run (RT_SOAK=1) 5 per class from 40 and 40.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { Rng } from "../../bench/edit-robustness/rng.ts";
import { PYLIB, loadOutsideCorpus, longLineFiles } from "../../bench/edit-robustness/outside/corpus.ts";
import { CLASSES, generateOutsideCases } from "../../bench/edit-robustness/outside/cases.ts";
import {
  type Outcome,
  cleanupRunner,
  explainWrong,
  firstDifference,
  prepare,
  runCase,
  tally,
} from "../../bench/edit-robustness/outside/runner.ts";
import { REPO, soak } from "../helpers.ts";

const SEED = Number(process.env.RT_OUTSIDE_SEED ?? 424242);
const PER_CLASS = Number(process.env.RT_OUTSIDE_PER_CLASS ?? soak(2, 5));
const SOURCES = soak(24, 40);

test("outside check: on generated edits of real files, rt writes the intended result or refuses, never anything else", {
  timeout: 240_000,
}, async (t) => {
  if (!fs.existsSync(PYLIB)) {
    t.skip(`no Python standard library at ${PYLIB}`);
    return;
  }
  const rng = new Rng(SEED);
  const files = loadOutsideCorpus(rng, REPO, { py: SOURCES, js: SOURCES, other: soak(3, 5) });
  const longFiles = longLineFiles(REPO, rng, 4);
  const { cases, invalidIntended } = prepare(generateOutsideCases(files, longFiles, rng, PER_CLASS));
  // The generator must have produced a real sample: most classes, every group.
  const classes = new Set(cases.map((c) => c.cls));
  assert.ok(classes.size >= CLASSES.length * 0.8, `only ${classes.size} of ${CLASSES.length} classes produced cases`);
  for (const g of ["slip", "format", "ambiguity", "reindent", "feature", "newcomer", "languages"])
    assert.ok(
      cases.some((c) => c.group === g),
      `no ${g} case`,
    );
  assert.ok(
    invalidIntended.length < cases.length * 0.1,
    `${invalidIntended.length} generator artefacts for ${cases.length} cases`,
  );

  const outcomes: Outcome[] = [];
  try {
    for (const c of cases) outcomes.push(await runCase(c));
  } finally {
    cleanupRunner();
  }
  explainWrong(outcomes);
  const tallies = tally(outcomes);
  const summary = [...tallies]
    .map(([cls, x]) => `${cls}: ${x.correct}/${x.cases} correct, ${x.refused} refused, ${x.wrong} wrong`)
    .join("\n");
  t.diagnostic(`seed ${SEED}, ${cases.length} cases, ${invalidIntended.length} artefacts left out\n${summary}`);
  const wrong = outcomes.filter((o) => o.judgement === "wrong");
  assert.deepEqual(
    wrong.map(
      (o) =>
        `${o.c.id} (${o.c.source}, ${o.c.tool}): ${o.detail}; ${firstDifference(o.written!, o.c.intended)}; parses: ${o.writtenSyntax === null ? "yes" : String(o.writtenSyntax)}`,
    ),
    [],
    "wrong writes (re-run one with RT_OUTSIDE_SEED and bench/edit-robustness/outside/run.mjs --only CLASS)",
  );
  // Cases that must be refused are; the recoverable ones are mostly recovered (refusals are allowed, but not a habit).
  const recoverable = outcomes.filter((o) => o.c.intended !== null);
  const correct = recoverable.filter((o) => o.judgement === "correct").length;
  assert.ok(correct >= recoverable.length * 0.75, `${correct} of ${recoverable.length} recoverable cases correct`);
});
