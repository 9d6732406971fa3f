// Markdown for the terminal: marked with marked-terminal's renderer (headings,
// lists, tables, code blocks highlighted by cli-highlight). Loaded with
// import() when the full-screen UI starts, never by other commands.
import type { Palette } from "./palette.js";

export type MarkdownRenderer = (text: string, width: number) => string;

const ANSI = /\x1b\[[0-9;]*m/g;

/** A renderer for `width`-column text; without colour (NO_COLOR), the same layout without escapes. */
export async function loadMarkdown(palette: Palette): Promise<MarkdownRenderer> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  const cache = new Map<number, InstanceType<typeof Marked>>();
  const forWidth = (width: number) => {
    let m = cache.get(width);
    if (!m) {
      m = new Marked();
      // marked-terminal's types lag behind marked's extension type; the object it returns is a MarkedExtension.
      m.use(markedTerminal({ width, reflowText: true, tab: 2, emoji: false }) as never);
      // marked-terminal prints a tight list item's text as it is, **bold** and `code` included, with
      // marked 13 and later (its issues #304, #371): such a text token carries inline tokens, rendered here.
      m.use({
        renderer: {
          text(token) {
            return typeof token === "object" && "tokens" in token && token.tokens
              ? this.parser.parseInline(token.tokens)
              : typeof token === "object"
                ? token.text
                : token;
          },
        },
      });
      cache.set(width, m);
    }
    return m;
  };
  return (text, width) => {
    let out: string;
    try {
      out = forWidth(Math.max(20, width)).parse(text, { async: false }) as string;
    } catch {
      // Half-written Markdown that trips the parser (a stream cut mid-table): show it as it is.
      out = text;
    }
    out = out.replace(/\n+$/, "");
    return palette.color ? out : out.replace(ANSI, "");
  };
}
