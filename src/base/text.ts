// Small text helpers every layer uses (counts with their noun, shell quoting),
// kept once at the bottom layer.

/** "1 file", "3 files" (`words` for irregular plurals). */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/** Like plural, with the count grouped by thousands ("12,345 lines"). */
export function pluralGrouped(n: number, word: string, words = `${word}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : words}`;
}

/** Quotes a word for bash when it needs it (the command printed must work when pasted). */
export function shellQuote(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
