// Fetching one web page for web_fetch: http(s) only, every address checked
// (addresses.ts) and the connection pinned to it, redirects followed only on
// the same host, a byte cap that also holds for compressed bodies, one
// deadline for the whole fetch. Everything that goes wrong is a ToolError
// saying what and why; nothing here writes anything.
import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import net from "node:net";
import zlib from "node:zlib";
import { Readable } from "node:stream";
import { ToolError } from "../base/errors.js";
import {
  isPrivateAddress,
  isLinkLocalAddress,
  inAllowedRange,
  inDomain,
  namedExactly,
  type HostAllowList,
} from "./addresses.js";

export interface FetchRules {
  /** Only these domains (and their subdomains) when not empty. */
  allowedDomains: readonly string[];
  blockedDomains: readonly string[];
  /** Private and loopback addresses are refused unless this is set (web.allow_private_addresses); link-local ones even then. */
  allowPrivate: boolean;
  /** web.allow_hosts: hosts, addresses and ranges allowed although private; link-local only when named exactly. */
  allowHosts?: HostAllowList;
  /** Said after a refusal of a private address (a project's allowance that waits for trust). */
  privateNote?: string;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

export type FetchOutcome =
  /** `address`: the address the page came from (the cache checks it against the rules of the day). */
  | { kind: "page"; url: string; status: number; contentType: string; body: Buffer; address?: string }
  /** A redirect to another host: not followed (the model decides whether to fetch it). */
  | { kind: "redirect"; from: string; to: string; status: number };

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The host without a leading "www.": example.com and www.example.com are one site. */
function site(host: string): string {
  return host.toLowerCase().replace(/^www\./, "");
}

/** Whether `raw` names its scheme ("http://...", "file:..."); "example.com/x" and "localhost:8080/x" do not. */
export function schemeGiven(raw: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw.trim()) || /^(?:file|mailto|data|javascript|about|ftp):/i.test(raw.trim());
}

/**
 * Why a connection to `ip` (what `host` resolved to, or the host itself) is refused under the
 * rules, or undefined when it is allowed. Public addresses are allowed; a private or loopback
 * one when web.allow_private_addresses is set or web.allow_hosts names the host, the address or
 * a range holding it; a link-local one (cloud metadata services) only when web.allow_hosts names
 * the host or the address exactly.
 */
export function addressRefusal(
  ip: string,
  host: string,
  rules: Pick<FetchRules, "allowPrivate" | "allowHosts" | "privateNote">,
): string | undefined {
  if (!isPrivateAddress(ip)) return undefined;
  if (namedExactly(rules.allowHosts, ip) || namedExactly(rules.allowHosts, host)) return undefined;
  const where = host.toLowerCase() === ip.toLowerCase() ? `${ip} is` : `${host} resolves to ${ip},`;
  if (isLinkLocalAddress(ip)) {
    return (
      `${where} a private, loopback or link-local address (link-local: where cloud metadata services answer): not fetched; ` +
      `neither web.allow_private_addresses nor a range in web.allow_hosts allows it, only web.allow_hosts naming "${ip}" exactly`
    );
  }
  if (rules.allowPrivate || inAllowedRange(rules.allowHosts, ip)) return undefined;
  return (
    `${where} a private, loopback or link-local address: not fetched (name it in web.allow_hosts, e.g. ["${host}"], ` +
    `or set web.allow_private_addresses to allow it)${rules.privateNote ?? ""}`
  );
}

/** The URL, checked: http or https (https when none is written), a host, no credentials, a host the rules allow. */
export function checkUrl(raw: string, rules: Pick<FetchRules, "allowedDomains" | "blockedDomains">): URL {
  let url: URL;
  try {
    url = new URL(schemeGiven(raw) ? raw : `https://${raw.trim()}`);
  } catch {
    throw new ToolError(`not a URL: ${JSON.stringify(raw)}; give a full http:// or https:// address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ToolError(`${url.protocol.replace(/:$/, "")}: URLs are not fetched; only http and https`);
  if (url.username || url.password) throw new ToolError("URLs with a user name or password are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (rules.blockedDomains.some((d) => inDomain(host, d)))
    throw new ToolError(`${host} is blocked by web.blocked_domains in the configuration`);
  if (rules.allowedDomains.length > 0 && !rules.allowedDomains.some((d) => inDomain(host, d))) {
    throw new ToolError(
      `${host} is not in web.allowed_domains (${rules.allowedDomains.join(", ")}); only those are fetched`,
    );
  }
  url.hash = "";
  return url;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** A dns.lookup for http.request that refuses what the rules refuse: the connection goes to an address that was checked. */
function checkedLookup(rules: FetchRules) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { all: true, ...(options.family ? { family: options.family } : {}) }, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses as dns.LookupAddress[];
      const refusal = list.map((a) => addressRefusal(a.address, hostname, rules)).find((r) => r !== undefined);
      if (refusal || list.length === 0) {
        const e = new Error(refusal ?? `${hostname} resolves to no address`) as NodeJS.ErrnoException;
        e.code = "RT_PRIVATE_ADDRESS";
        return callback(e, "");
      }
      if (options.all) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
}

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  stream: http.IncomingMessage;
  /** The address connected to. */
  address?: string;
}

function request(url: URL, rules: FetchRules, signal: AbortSignal): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const refusal = net.isIP(host) !== 0 ? addressRefusal(host, host, rules) : undefined;
  if (refusal) return Promise.reject(new ToolError(refusal));
  const mod = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: "GET",
        signal,
        lookup: checkedLookup(rules) as unknown as typeof dns.lookup,
        headers: {
          "user-agent": "rt-web-fetch/1 (+https://www.npmjs.com/package/rt-agent)",
          accept: "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5",
          "accept-encoding": "gzip, deflate, br",
        },
      },
      (res) =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          stream: res,
          ...(res.socket?.remoteAddress ? { address: res.socket.remoteAddress.replace(/^::ffff:(?=\d+\.)/i, "") } : {}),
        }),
    );
    req.on("error", reject);
    req.end();
  });
}

/** The body, decompressed, at most maxBytes (else a ToolError: a bigger page is refused, not cut mid-markup). */
async function readBody(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers["content-length"]);
  const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.stream.destroy();
    throw new ToolError(`the page is ${mb(declared)}; web_fetch downloads at most ${mb(maxBytes)}`);
  }
  const encoding = String(res.headers["content-encoding"] ?? "")
    .toLowerCase()
    .trim();
  let stream: Readable = res.stream;
  if (encoding === "gzip" || encoding === "x-gzip") stream = res.stream.pipe(zlib.createGunzip());
  else if (encoding === "deflate") stream = res.stream.pipe(zlib.createInflate());
  else if (encoding === "br") stream = res.stream.pipe(zlib.createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.stream.destroy();
        stream.destroy();
        throw new ToolError(
          `the page is over ${mb(maxBytes)} (the download stopped there); web_fetch downloads at most ${mb(maxBytes)}`,
        );
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw new ToolError(`the page could not be read: ${(e as Error).message}`);
  }
  return Buffer.concat(chunks);
}

/** Why a request failed, in words (the deadline, a refused address, the network). */
function failure(e: unknown, url: URL, timedOut: boolean, timeoutMs: number): ToolError {
  if (e instanceof ToolError) return e;
  const err = e as NodeJS.ErrnoException;
  if (timedOut)
    return new ToolError(`${url.href}: no complete answer within ${Math.round(timeoutMs / 1000)} s; not fetched`);
  if (err.name === "AbortError") return new ToolError(`${url.href}: the fetch was cancelled`);
  if (err.code === "RT_PRIVATE_ADDRESS") return new ToolError(err.message);
  if (err.code === "ENOTFOUND") return new ToolError(`${url.hostname}: no such host`);
  return new ToolError(`${url.href}: ${err.code ? `${err.code}: ` : ""}${err.message}`);
}

/**
 * Fetches `raw` as written: an http URL over http (a plain-HTTP server on any port answers
 * it; the host's own redirect to https is followed). Only an address written without a
 * scheme ("example.com/x") is tried over https first, then http when the host does not serve
 * https. Redirects on the same site are followed (at most 5), a redirect to another host is
 * returned, not followed.
 */
export async function fetchPage(raw: string, rules: FetchRules): Promise<FetchOutcome> {
  let url = checkUrl(raw, rules);
  const guessed = !schemeGiven(raw);
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, rules.timeoutMs);
  const onCancel = () => deadline.abort();
  rules.signal?.addEventListener("abort", onCancel, { once: true });
  try {
    if (guessed) {
      try {
        return await follow(url, await request(url, rules, deadline.signal), rules, deadline.signal);
      } catch (e) {
        // The host does not serve https (refused, not TLS, a bad certificate): plain http.
        if (
          e instanceof ToolError ||
          deadline.signal.aborted ||
          (e as NodeJS.ErrnoException).code === "RT_PRIVATE_ADDRESS"
        )
          throw e;
        url = new URL(url.href.replace(/^https:/, "http:"));
      }
    }
    return await follow(url, await request(url, rules, deadline.signal), rules, deadline.signal);
  } catch (e) {
    throw failure(e, url, timedOut, rules.timeoutMs);
  } finally {
    clearTimeout(timer);
    rules.signal?.removeEventListener("abort", onCancel);
  }
}

async function follow(url: URL, first: Response, rules: FetchRules, signal: AbortSignal): Promise<FetchOutcome> {
  let res = first;
  for (let hops = 0; ; hops++) {
    if (!REDIRECT_STATUSES.has(res.status)) break;
    res.stream.resume();
    const location = res.headers.location;
    if (!location) throw new ToolError(`${url.href}: redirect (${res.status}) without a Location`);
    const next = new URL(location, url);
    if (site(next.hostname) !== site(url.hostname) || (next.protocol !== "http:" && next.protocol !== "https:")) {
      return { kind: "redirect", from: url.href, to: next.href, status: res.status };
    }
    if (hops >= MAX_REDIRECTS)
      throw new ToolError(`${url.href}: more than ${MAX_REDIRECTS} redirects; not followed further`);
    url = checkUrl(next.href, rules);
    res = await request(url, rules, signal);
  }
  if (res.status >= 400) {
    res.stream.resume();
    throw new ToolError(
      `${url.href}: HTTP ${res.status}${res.stream.statusMessage ? ` ${res.stream.statusMessage}` : ""}`,
    );
  }
  const body = await readBody(res, rules.maxBytes);
  return {
    kind: "page",
    url: url.href,
    status: res.status,
    contentType: String(res.headers["content-type"] ?? ""),
    body,
    ...(res.address ? { address: res.address } : {}),
  };
}
