// Tool output for the model is capped. Output that cannot page (a command's)
// keeps its head and tail, since errors tend to be
// at the end and context at the start, and a marker in the middle says how much
// was cut and where the whole output was saved, so the model can read or grep the
// rest. Output that pages (a file read, a listing) is never cut in the middle: it
// keeps its first lines, cut at a line, with a last line saying where it stopped.

export interface Truncated {
  text: string;
  /** Characters left out (0 when nothing was cut). */
  cut: number;
}

/**
 * `text` cut to about `max` characters keeping head and tail, at line breaks
 * when one is near. `where` names the saved file for the marker (or says why
 * there is none).
 */
export function cutMiddle(text: string, max: number, where: string): Truncated {
  if (text.length <= max) return { text, cut: 0 };
  const budget = Math.max(0, max - 200); // room for the marker
  let headEnd = Math.floor(budget * 0.6);
  let tailStart = text.length - (budget - headEnd);
  // Prefer whole lines when a line break is within the last/first 20% of each part.
  const nl = text.lastIndexOf("\n", headEnd);
  if (nl > headEnd * 0.8) headEnd = nl + 1;
  const nl2 = text.indexOf("\n", tailStart);
  if (nl2 !== -1 && nl2 < tailStart + (text.length - tailStart) * 0.2) tailStart = nl2 + 1;
  const cut = tailStart - headEnd;
  const marker = `\n[... ${cut.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters cut here; ${where} ...]\n`;
  return { text: text.slice(0, headEnd) + marker + text.slice(tailStart), cut };
}

/**
 * `text` cut to at most `max` characters keeping its first whole lines, and a last line
 * saying which line it stopped after, how many were left out and `where` the rest is.
 */
export function cutTail(text: string, max: number, where: string): Truncated {
  if (text.length <= max) return { text, cut: 0 };
  const totalLines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const budget = Math.max(0, max - 240); // room for the marker
  let end = text.lastIndexOf("\n", budget);
  // A single line longer than the whole budget: cut inside it (the marker says so).
  end = end <= 0 ? budget : end + 1;
  const head = text.slice(0, end);
  const shown = head.split("\n").length - (head.endsWith("\n") ? 1 : 0);
  const cut = text.length - end;
  const marker = `${head.endsWith("\n") ? "" : "\n"}[... output cut after its line ${shown.toLocaleString("en-US")} of ${totalLines.toLocaleString("en-US")} (${cut.toLocaleString("en-US")} characters left out); ${where} ...]`;
  return { text: head + marker, cut };
}
