import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { WEB_FETCH_MAX_MARKDOWN_BYTES, WEB_FETCH_QUOTE_MAX_CHARS } from "../base/limits.js";

const SYSTEM = `You answer a question about one web page, given as Markdown. Use only the page. Be concise and specific; keep code, names and numbers exact. Quote at most a few short passages, each under ${WEB_FETCH_QUOTE_MAX_CHARS} characters, in quotation marks; otherwise paraphrase. If the page does not answer the question, say so.`;

/**
 * The charset an HTML document declares in its first 1024 bytes, as browsers look for it
 * (the HTML standard's prescan, simplified): `<meta charset="x">` or
 * `<meta http-equiv="Content-Type" content="text/html; charset=x">`.
 */
function declaredCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString("latin1");
  for (const m of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct && !/http-equiv/i.test(tag)) return direct[1];
    if (/http-equiv\s*=\s*["']?\s*content-type/i.test(tag)) {
      const content = /\bcontent\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
      const value = content?.[2] ?? content?.[3] ?? content?.[4] ?? "";
      const cs = /charset\s*=\s*["']?([\w.:-]+)/i.exec(value)?.[1];
      if (cs) return cs;
    }
  }
  return undefined;
}

/** windows-1252's characters for the bytes 0x80-0x9F (the WHATWG index); the other bytes are their own code points. */
const CP1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

function windows1252(body: Buffer): string {
  let out = "";
  for (const b of body) out += b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
  return out;
}

/**
 * The text of a response body, in the order browsers decide it: a byte order mark, the
 * charset of the Content-Type header, the document's own declaration (HTML), else UTF-8.
 */
function decode(body: Buffer, contentType: string, kind: "html" | "text"): string {
  const bom =
    body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf
      ? "utf-8"
      : body[0] === 0xff && body[1] === 0xfe
        ? "utf-16le"
        : body[0] === 0xfe && body[1] === 0xff
          ? "utf-16be"
          : undefined;
  const header = /charset="?([\w.:-]+)/i.exec(contentType)?.[1];
  const charset = bom ?? header ?? (kind === "html" ? declaredCharset(body) : undefined) ?? "utf-8";
  try {
    const decoder = new TextDecoder(charset);
    // The Encoding standard reads ISO-8859-1 and ASCII as windows-1252; Node's decoder gives 0x80-0x9F as C1 controls.
    if (decoder.encoding === "windows-1252") return windows1252(body);
    return decoder.decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** "html", "text", or undefined for content that is not text. A missing type is sniffed. */
function kindOf(contentType: string, body: Buffer): "html" | "text" | undefined {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (
    type.startsWith("text/") ||
    /^application\/(json|xml|javascript|x-javascript|ld\+json|rss\+xml|atom\+xml|x-yaml|yaml|toml)$/.test(type) ||
    type.endsWith("+json") ||
    type.endsWith("+xml")
  )
    return "text";
  if (type === "") {
    const head = body.subarray(0, 4096);
    if (head.includes(0)) return undefined;
    return /^\s*(<!doctype html|<html)/i.test(head.toString("utf8")) ? "html" : "text";
  }
  return undefined;
}

/** Cut to at most `max` bytes of UTF-8, at a line end when one is near. */
function cutTo(text: string, max: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, cut: false };
  let head = Buffer.from(text)
    .subarray(0, max)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const nl = head.lastIndexOf("\n");
  if (nl > max * 0.9) head = head.slice(0, nl);
  return { text: head, cut: true };
}

export const webFetchTool = defineTool({
  name: "web_fetch",
  aliases: ["WebFetch"],
  brief: "Fetch a web page and answer prompt about it.",
  description: `Fetch an http(s) URL and answer prompt from the page (as Markdown, cut at ${WEB_FETCH_MAX_MARKDOWN_BYTES / 1024} KB) with a small model. raw: true returns the Markdown itself. A redirect to another host is returned, not followed. Cached 15 minutes.`,
  schema: () =>
    z
      .object({
        url: z.string().min(1).describe("http:// or https:// URL"),
        prompt: z.string().min(1).optional().describe("What to find out from the page"),
        raw: z.boolean().optional().describe("Return the page's Markdown"),
      })
      .strict(),
  readOnly: true,
  idempotent: true,
  approvalScope: (args) => {
    try {
      return new URL(args.url).hostname.toLowerCase();
    } catch {
      return undefined;
    }
  },
  async handler(args, { workspace, signal, askModel }) {
    if (!args.raw && args.prompt === undefined)
      throw new ToolError("prompt is required: what to find out from the page (or raw: true for the page itself)");
    const [{ fetchPage, checkUrl, addressRefusal }, { cachedPage, cachePage }, { webSettings, fetchRules }] =
      await Promise.all([import("../web/fetchPage.js"), import("../web/cache.js"), import("../web/settings.js")]);
    const settings = webSettings(workspace);
    const rules = fetchRules(settings.config, signal, settings.privateNote);
    const url = checkUrl(args.url, rules).href;
    let page = cachedPage(workspace.state, url);
    if (page) {
      // The cache answers only what today's rules would fetch: the final URL's domain, the address it came from.
      try {
        const final = checkUrl(page.final_url, rules);
        if (!page.address || addressRefusal(page.address, final.hostname.replace(/^\[|\]$/g, ""), rules) !== undefined)
          page = undefined;
      } catch {
        page = undefined;
      }
    }
    const fromCache = page !== undefined;
    if (!page) {
      const got = await fetchPage(args.url, rules);
      if (got.kind === "redirect") {
        return ok(
          `${got.from} redirected (${got.status}) to another host: ${got.to}\nIt was not followed. Fetch that URL with web_fetch if you want it.`,
          { url: got.from, redirect_url: got.to, status: got.status },
        );
      }
      const kind = kindOf(got.contentType, got.body);
      if (!kind)
        throw new ToolError(
          `${got.url}: content type ${got.contentType || "(none)"} is not text; web_fetch reads HTML and text pages`,
        );
      const text = decode(got.body, got.contentType, kind);
      let title: string | undefined;
      let markdown = text;
      if (kind === "html") {
        const { htmlToMarkdown } = await import("../web/htmlToMarkdown.js");
        ({ title, markdown } = await htmlToMarkdown(text));
      }
      const cut = cutTo(markdown, WEB_FETCH_MAX_MARKDOWN_BYTES);
      page = {
        url,
        final_url: got.url,
        content_type: got.contentType,
        ...(got.address ? { address: got.address } : {}),
        ...(title ? { title } : {}),
        markdown: cut.text,
        cut: cut.cut,
        fetched_at: Date.now(),
      };
      cachePage(workspace.state, page);
    }
    const meta = {
      url,
      final_url: page.final_url,
      content_type: page.content_type,
      ...(page.title ? { title: page.title } : {}),
      bytes: Buffer.byteLength(page.markdown),
      cut: page.cut,
      cached: fromCache,
    };
    const head = `${page.final_url}${page.title ? ` (${page.title})` : ""}: ${Math.ceil(Buffer.byteLength(page.markdown) / 1024)} KB of Markdown${page.cut ? `, cut at ${WEB_FETCH_MAX_MARKDOWN_BYTES / 1024} KB` : ""}${fromCache ? ", from the 15-minute cache" : ""}`;
    if (args.raw || !askModel) {
      const note = !args.raw ? "\n(no model here to apply the prompt: the page itself follows)" : "";
      return ok(`${head}${note}\n\n${page.markdown}`, { ...meta, raw: true });
    }
    const answer = await askModel({
      system: SYSTEM,
      prompt: `${args.prompt}\n\n<page url="${page.final_url}">\n${page.markdown}\n</page>`,
      ...(signal ? { signal } : {}),
    });
    return ok(`${head}\n\n${answer.trim()}`, { ...meta, raw: false });
  },
});
