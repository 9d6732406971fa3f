// A fetched page as Markdown for a model: HTML through Mozilla's Readability
// (the main content of an article, without navigation, ads and footers) when
// it finds one, else the whole body, then turndown with GitHub-flavoured
// tables. Scripts, styles and other markup that carry no text are dropped.
// The libraries load on first use: rt's other commands never pay for them.

/** The page as Markdown, with its title when it has one. */
export async function htmlToMarkdown(html: string): Promise<{ title?: string; markdown: string }> {
  const [{ parseHTML }, { Readability }, turndownMod, gfmMod] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("turndown"),
    import("turndown-plugin-gfm"),
  ]);
  const TurndownService = ((turndownMod as { default?: unknown }).default ?? turndownMod) as typeof import("turndown");
  const gfm = ((gfmMod as { gfm?: unknown; default?: { gfm?: unknown } }).gfm ??
    (gfmMod as { default?: { gfm?: unknown } }).default?.gfm) as import("turndown").Plugin;
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll("script, style, noscript, template, iframe, svg, canvas")) el.remove();
  const title = (document.querySelector("title")?.textContent ?? "").trim() || undefined;
  let content: string | undefined;
  try {
    // Readability changes the document it reads: give it a copy.
    // Readability drops every class it is not told to keep: the code blocks' language classes are kept.
    const languages = new Set<string>();
    for (const el of document.querySelectorAll("pre, code")) {
      for (const c of (el.getAttribute("class") ?? "").split(/\s+/))
        if (/^(?:language|lang)-[\w+-]+$/.test(c)) languages.add(c);
    }
    const article = new Readability(parseHTML(document.toString()).document as unknown as Document, {
      charThreshold: 200,
      classesToPreserve: [...languages],
    }).parse();
    // Only when it found a real article (a long enough text); a page of tables or a listing keeps its body.
    const bodyText = (document.body?.textContent ?? "").replace(/\s+/g, " ").length;
    if (article?.content && (article.textContent ?? "").replace(/\s+/g, " ").length >= Math.min(500, bodyText * 0.5))
      content = article.content;
  } catch {
    content = undefined;
  }
  const td = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  td.use(gfm);
  // Markdown escaping ("\\-n" for "-n", "\\_" in "__init__") is noise to a model reading the text: keep it as written.
  td.escape = (s: string) => s;
  // Code blocks keep their language when the markup names it (class="language-x").
  td.addRule("fencedWithLanguage", {
    filter: (node) => node.nodeName === "PRE" && node.firstChild?.nodeName === "CODE",
    replacement: (_content, node) => {
      const code = node.firstChild as HTMLElement;
      const classes = `${code.getAttribute("class") ?? ""} ${(node as HTMLElement).getAttribute("class") ?? ""}`;
      const lang = /(?:^|\s)(?:language|lang)-([\w+-]+)/.exec(classes)?.[1] ?? "";
      const text = code.textContent ?? "";
      const fence = text.includes("```") ? "~~~" : "```";
      return `\n\n${fence}${lang}\n${text.replace(/\n$/, "")}\n${fence}\n\n`;
    },
  });
  const source = content ?? document.body?.innerHTML ?? html;
  const markdown = td
    .turndown(source)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { ...(title ? { title } : {}), markdown };
}
