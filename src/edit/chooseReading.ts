// Choosing among readings of an edit's indentation. When the
// caller's content can be placed more than one way (kept as written, shifted
// back like the lines it repeats, moved to the replaced lines' level...), the
// readings are tried in order of likelihood and the first that adds no syntax
// error and moves no untouched line into another block wins; one that also
// keeps every re-indented line in its block is preferred. A reading whose only
// fault is a re-indented line leaving a block is no way out when another
// reading moves that same line out of that same block untouched: then it is
// the content, not the indentation, that moves it. If none is valid the
// edit is refused with every reading and what is wrong with it, so the caller
// can say which it meant (indent_level, or exact indentation).
import { type SyntaxProblem, validateEdit } from "./validate.js";

export interface Reading {
  /** The whole new text of the file under this reading (normalized, as validateEdit takes it). */
  text: string;
  /** How the content was placed, in words ("kept as written: column 4 is a level open here"). */
  why: string;
}

export type Choice = { index: number; note?: string } | { refused: string };

const where = (p: SyntaxProblem): string =>
  `line ${p.line}: ${p.message ?? (p.kind === "missing" ? `missing ${JSON.stringify(p.text)}` : `unexpected ${JSON.stringify(p.text)}`)}`;

/**
 * The reading to write. `before` is the file's current text. With a single
 * reading nothing is validated here (the pipeline validates what it writes).
 */
export async function chooseReading(
  path: string,
  before: string,
  readings: Reading[],
  opts: { root?: string } = {},
): Promise<Choice> {
  if (readings.length <= 1) return { index: 0 };
  const verdicts: Array<{ hard: SyntaxProblem[]; soft: SyntaxProblem[] }> = [];
  for (let i = 0; i < readings.length; i++) {
    const v = await validateEdit(path, before, readings[i].text, opts);
    // Nothing to judge by (a language rt does not parse): the likeliest reading.
    if (!v.checked) return { index: 0 };
    verdicts.push({ hard: v.introduced, soft: v.moved });
    if (v.introduced.length === 0 && v.moved.length === 0)
      return { index: i, note: i === 0 ? undefined : noteFor(readings, verdicts, i) };
  }
  // A line one reading would move into another block (a hard problem) is moved just the same by a
  // reading that also re-indents it (there only a soft one): that reading is no way out.
  const movedKey = (p: SyntaxProblem): string => (p.moved ? `${p.moved.text}\u0000${p.moved.block}` : "");
  const structural = new Set(verdicts.flatMap((v) => v.hard.filter((p) => p.moved).map(movedKey)));
  const blocking = (v: { hard: SyntaxProblem[]; soft: SyntaxProblem[] }): SyntaxProblem | undefined =>
    v.hard[0] ?? v.soft.find((p) => p.moved && structural.has(movedKey(p)));
  const valid = verdicts.findIndex((v) => blocking(v) === undefined);
  if (valid !== -1) return { index: valid, note: valid === 0 ? undefined : noteFor(readings, verdicts, valid) };
  const blockers = verdicts.map((v) => blocking(v)!);
  const lines = readings.map((r, i) => `  ${i + 1}. ${r.why}: ${where(blockers[i])}`);
  // Every reading fails on the same line leaving the same block: no indentation helps, the content does it.
  const sameMove = blockers.every((p) => p.moved && movedKey(p) === movedKey(blockers[0]));
  return {
    refused:
      `every way rt can read the new content's indentation breaks the file, so nothing was written:\n${lines.join("\n")}\n` +
      (sameMove
        ? "No indentation helps: the new lines themselves take that line out of its block (a statement added to a block without braces, say). Give the block braces in the same edit, or make the change elsewhere."
        : "Give the indentation explicitly (indent_level, or old_string and new_string copied with the file's exact indentation)."),
  };
}

function noteFor(
  readings: Reading[],
  verdicts: Array<{ hard: SyntaxProblem[]; soft: SyntaxProblem[] }>,
  chosen: number,
): string {
  const first = verdicts[0];
  const problem = first.hard[0] ?? first.soft[0];
  return `note: indentation ${readings[chosen].why}; the first reading (${readings[0].why}) would break the file at ${problem ? where(problem) : "an untouched line"}`;
}
