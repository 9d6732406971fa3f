// Which network addresses web_fetch may reach. A model can be steered (by a
// page, a file, a prompt) into fetching http://169.254.169.254/ or a service
// on the user's own machine or network: server-side request forgery. So the
// addresses a host name resolves to are checked, and the connection is made
// to the checked address (fetchPage.ts pins it), never resolved again: a DNS
// answer that changes between check and connect (rebinding) cannot get past.
import net from "node:net";

const BLOCKED = new net.BlockList();
for (const [addr, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(addr, prefix, "ipv4");
}
for (const [addr, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["100::", 64], // discard
] as const) {
  BLOCKED.addSubnet(addr, prefix, "ipv6");
}

/** The IPv4 address an IPv6 address embeds (::ffff:a.b.c.d mapped, 64:ff9b::/96 NAT64), if any. */
function embeddedV4(ip: string): string | undefined {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const a = parseInt(hex[1], 16);
    const b = parseInt(hex[2], 16);
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return undefined;
}

/** Whether `ip` is private, loopback, link-local or otherwise not a public internet address. */
export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return BLOCKED.check(ip, "ipv4");
  if (family === 6) {
    const v4 = embeddedV4(ip);
    if (v4) return BLOCKED.check(v4, "ipv4");
    return BLOCKED.check(ip, "ipv6");
  }
  return true; // not an address at all: refuse
}

/** Whether `host` is `domain` or one of its subdomains (both lower case, no trailing dot). */
export function inDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  const d = domain
    .toLowerCase()
    .replace(/^\*?\./, "")
    .replace(/\.$/, "");
  return h === d || h.endsWith(`.${d}`);
}

const LINK_LOCAL = new net.BlockList();
LINK_LOCAL.addSubnet("169.254.0.0", 16, "ipv4");
LINK_LOCAL.addSubnet("fe80::", 10, "ipv6");

/**
 * Whether `ip` is link-local: 169.254.0.0/16 and fe80::/10, where cloud metadata services answer
 * (169.254.169.254) with the machine's credentials. Such an address is reached only when
 * web.allow_hosts names it (or the host) exactly; no range and no allow_private_addresses covers it.
 */
export function isLinkLocalAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return LINK_LOCAL.check(ip, "ipv4");
  if (family === 6) {
    const v4 = embeddedV4(ip);
    return v4 ? LINK_LOCAL.check(v4, "ipv4") : LINK_LOCAL.check(ip, "ipv6");
  }
  return false;
}

/** web.allow_hosts, parsed: host names, single addresses, and address ranges (CIDR). */
export interface HostAllowList {
  /** Host names and addresses as written, lower case (an address in its canonical form). */
  exact: ReadonlySet<string>;
  ranges: net.BlockList;
  /** How many ranges were added (a BlockList cannot say). */
  rangeCount: number;
}

/** The canonical text of an address (IPv6 compressed, lower case), or the name as written, lower case. */
function canonical(hostOrIp: string): string {
  const h = hostOrIp
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (net.isIP(h) === 6) {
    const sa = new net.SocketAddress({ address: h, family: "ipv6" });
    return sa.address;
  }
  return h;
}

/** Parses web.allow_hosts entries ("localhost", "10.0.0.7", "192.168.1.0/24", "fd00::/8"). A bad range is an Error naming it. */
export function parseAllowHosts(entries: readonly string[]): HostAllowList {
  const exact = new Set<string>();
  const ranges = new net.BlockList();
  let rangeCount = 0;
  for (const raw of entries) {
    const entry = raw.trim();
    const slash = entry.indexOf("/");
    if (slash < 0) {
      exact.add(canonical(entry));
      continue;
    }
    const addr = canonical(entry.slice(0, slash));
    const bits = Number(entry.slice(slash + 1));
    const family = net.isIP(addr);
    if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw new Error(
        `web.allow_hosts: "${raw}" is not a host name, an address or a range (ADDRESS/BITS, e.g. 192.168.1.0/24)`,
      );
    }
    ranges.addSubnet(addr, bits, family === 4 ? "ipv4" : "ipv6");
    rangeCount++;
  }
  return { exact, ranges, rangeCount };
}

/** Whether the allow list names this host or address exactly. */
export function namedExactly(list: HostAllowList | undefined, hostOrIp: string): boolean {
  return !!list && list.exact.has(canonical(hostOrIp));
}

/** Whether the allow list covers this address (named exactly, or inside one of its ranges). */
export function inAllowedRange(list: HostAllowList | undefined, ip: string): boolean {
  if (!list) return false;
  if (namedExactly(list, ip)) return true;
  const family = net.isIP(ip);
  if (family === 0 || list.rangeCount === 0) return false;
  const v4 = family === 6 ? embeddedV4(ip) : undefined;
  return v4 ? list.ranges.check(v4, "ipv4") : list.ranges.check(ip, family === 4 ? "ipv4" : "ipv6");
}
