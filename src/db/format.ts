// Query results as an ASCII table:
//
//   +----+-------+---------+
//   | id | owner | balance |
//   +----+-------+---------+
//   |  1 | alice |   100.5 |
//   +----+-------+---------+
import type { Cell } from "./driver.js";
import { SQL_MAX_CELL_CHARS } from "../base/limits.js";

/** One cell as shown in the table: NULL, blobs summarised, control characters escaped, long text cut. */
export function cellText(c: Cell, max = SQL_MAX_CELL_CHARS): string {
  let s: string;
  if (c === null) s = "NULL";
  else if (typeof c === "object")
    s = `<blob ${c.blob} bytes${c.hex ? `: ${c.hex}${c.blob > c.hex.length / 2 ? "..." : ""}` : ""}>`;
  else s = String(c);
  s = s
    .replace(/\r\n|\r|\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/[\0-\x08\x0b\x0c\x0e-\x1f\x7f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
  const chars = Array.from(s);
  if (chars.length > max) s = `${chars.slice(0, max - 3).join("")}...`;
  return s;
}

const width = (s: string) => Array.from(s).length;

export function asciiTable(columns: string[], rows: Cell[][]): string {
  const head = columns.map((c) => cellText(c));
  const body = rows.map((r) => r.map((c) => cellText(c)));
  const numeric = columns.map(
    (_, i) =>
      rows.some((r) => typeof r[i] === "number") && rows.every((r) => r[i] === null || typeof r[i] === "number"),
  );
  const widths = head.map((h, i) => Math.max(width(h), ...body.map((r) => width(r[i] ?? ""))));
  const rule = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (cells: string[], alignNumbers: boolean) =>
    `| ${cells
      .map((c, i) => {
        const pad = " ".repeat(widths[i] - width(c));
        return alignNumbers && numeric[i] ? pad + c : c + pad;
      })
      .join(" | ")} |`;
  return [rule, line(head, false), rule, ...body.map((r) => line(r, true)), rule].join("\n");
}
