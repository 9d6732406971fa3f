// How the indentation of old_string relates to the indentation of the lines
// it matched, and re-indenting new_string by the same relation. A model that
// quoted a block dedented (or with spaces where the file has tabs) writes
// new_string the same way; replaying the relation on new_string puts the new
// lines where the old ones were.

/** Tab widths tried, in order, when tabs on one side meet spaces on the other. */
const TAB_WIDTHS = [4, 8, 2];

export type IndentKind =
  /** Same indentation on every line. */
  | "identity"
  /** Every line moved by the same number of columns (possibly 0, with tabs ↔ spaces). */
  | "uniform"
  /** Anything else: each old indentation maps to a file indentation, or to several (inconsistent). */
  | "irregular";

export interface IndentRelation {
  kind: IndentKind;
  tabWidth: number;
  /** Columns added (uniform only). */
  delta: number;
  /** Render computed indentation with tabs (the file's lines are tab-indented). */
  useTabs: boolean;
  /** Old indentation → the file indentation it stood for; null when it stood for several. */
  map: Map<string, string | null>;
}

/** Visual width of an indentation string. */
export function indentWidth(indent: string, tabWidth: number): number {
  let w = 0;
  for (let i = 0; i < indent.length; i++) w = indent[i] === "\t" ? w - (w % tabWidth) + tabWidth : w + 1;
  return w;
}

function render(width: number, useTabs: boolean, tabWidth: number): string {
  const w = Math.max(0, width);
  return useTabs ? "\t".repeat(Math.floor(w / tabWidth)) + " ".repeat(w % tabWidth) : " ".repeat(w);
}

/**
 * The relation shown by pairs of (old line's indentation, file line's
 * indentation), blank lines left out by the caller. `preferTabWidth` (the
 * file's own indentation unit, when known) is tried first as the width a tab
 * stood for.
 */
export function relateIndentation(
  pairs: ReadonlyArray<readonly [string, string]>,
  preferTabWidth?: number,
): IndentRelation {
  const widths = preferTabWidth ? [preferTabWidth, ...TAB_WIDTHS.filter((w) => w !== preferTabWidth)] : TAB_WIDTHS;
  const map = new Map<string, string | null>();
  for (const [o, f] of pairs) {
    if (!map.has(o)) map.set(o, f);
    else if (map.get(o) !== f) map.set(o, null);
  }
  const tabbed = pairs.filter(([, f]) => f.length > 0);
  const useTabs = tabbed.length > 0 && tabbed.filter(([, f]) => f[0] === "\t").length * 2 >= tabbed.length;
  if (pairs.every(([o, f]) => o === f)) return { kind: "identity", tabWidth: widths[0], delta: 0, useTabs, map };
  // When several tab widths explain the pairs, one that needs no shift (a plain
  // tabs ↔ spaces conversion) is likelier than a conversion plus a shift.
  let uniform: IndentRelation | undefined;
  for (const tw of widths) {
    const d = indentWidth(pairs[0][1], tw) - indentWidth(pairs[0][0], tw);
    if (pairs.every(([o, f]) => indentWidth(f, tw) - indentWidth(o, tw) === d)) {
      if (d === 0) return { kind: "uniform", tabWidth: tw, delta: 0, useTabs, map };
      uniform ??= { kind: "uniform", tabWidth: tw, delta: d, useTabs, map };
    }
  }
  if (uniform) return uniform;
  return { kind: "irregular", tabWidth: TAB_WIDTHS[0], delta: 0, useTabs, map };
}

/**
 * The indentation a new line written with `indent` gets in the file, or
 * null when the relation cannot tell (its old indentation stood for several
 * file indentations, or no old indentation maps consistently).
 */
export function reindent(indent: string, rel: IndentRelation): string | null {
  if (rel.kind === "identity") return indent;
  const known = rel.map.get(indent);
  if (known) return known;
  const tw = rel.tabWidth;
  const w = indentWidth(indent, tw);
  // A uniform shift is defined for every width, even where the file mixed tabs and spaces.
  if (rel.kind === "uniform") return render(w + rel.delta, rel.useTabs, tw);
  if (known === "") return known;
  if (known === null) return null;
  // Irregular: measure from the closest consistent old indentation at or below this one.
  let ref: [string, string] | undefined;
  let refW = -1;
  let lowest: [string, string] | undefined;
  let lowestW = Infinity;
  for (const [o, f] of rel.map) {
    if (f === null) continue;
    const ow = indentWidth(o, tw);
    if (ow <= w && ow > refW) {
      ref = [o, f];
      refW = ow;
    }
    if (ow < lowestW) {
      lowest = [o, f];
      lowestW = ow;
    }
  }
  const base = ref ?? lowest;
  if (!base) return null;
  return render(indentWidth(base[1], tw) + (w - indentWidth(base[0], tw)), rel.useTabs, tw);
}

/** For messages: "+4 columns", "tabs for spaces"... */
export function describeRelation(rel: IndentRelation): string {
  if (rel.kind === "identity") return "same indentation";
  if (rel.kind === "irregular") return "indentation differing line by line";
  const parts: string[] = [];
  if (rel.delta !== 0)
    parts.push(`${rel.delta > 0 ? "+" : ""}${rel.delta} column${Math.abs(rel.delta) === 1 ? "" : "s"}`);
  const oldTabs = [...rel.map.keys()].some((o) => o.includes("\t"));
  if (rel.useTabs && !oldTabs) parts.push("spaces where the file has tabs");
  if (!rel.useTabs && oldTabs) parts.push("tabs where the file has spaces");
  return parts.length ? `indentation shifted (${parts.join(", ")})` : "indentation written differently";
}
