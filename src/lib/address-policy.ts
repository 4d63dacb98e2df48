// One address policy for every URL a user supplies that the service reads or calls (media
// download URLs, push endpoints, webhooks): what a URL's host is, read from the WHATWG parser's
// canonical form, so each spelling of an address is judged as the address it stands for (the
// parser turns decimal, hex, octal and short IPv4 forms into dotted quads, and every IPv6
// spelling, IPv4-mapped ones included, into its compressed form). No name is resolved here: a
// DNS name is judged by its text.

/**
 * What a URL's hostname names:
 * - `loopback`: this machine (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`, and IPv4-mapped
 *   loopback);
 * - `private`: an address no public service has (this network, private, carrier-grade NAT,
 *   link-local such as cloud metadata, benchmarking, multicast, reserved and broadcast; the IPv6
 *   unspecified, unique-local and link-local addresses; any IPv4-mapped IPv6 address that is not
 *   loopback);
 * - `public_ip`: any other IP address;
 * - `name`: a DNS name.
 */
export type HostKind = "loopback" | "private" | "public_ip" | "name";

/** What `hostname` (as `URL.hostname` gives it, IPv6 in brackets) names; one trailing dot is ignored. */
export function hostKind(hostname: string): HostKind {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  const v4 = ipv4Octets(host) ?? mappedIpv4(host);
  if (v4) return v4[0] === 127 ? "loopback" : isPrivateIpv4(v4) ? "private" : "public_ip";
  if (host.startsWith("[")) {
    const v6 = host.slice(1, -1);
    if (v6 === "::1") return "loopback";
    return isPrivateIpv6(v6) ? "private" : "public_ip";
  }
  return "name";
}

/** A loopback host written as `URL.hostname` gives it: http to it never leaves this machine. */
export const isLoopbackHost = (hostname: string): boolean => hostKind(hostname) === "loopback";

/**
 * Whether `address` (an IP address as a platform header carries it: `127.0.0.1`, `::1`, no
 * brackets) is a loopback address. A name (`localhost`) is not an address and is never loopback here.
 */
export function isLoopbackAddress(address: string): boolean {
  // Every request asks this of its peer's address, most often a dotted quad: read it directly.
  if (DOTTED_QUAD.test(address)) return ipv4Octets(address)?.[0] === 127;
  let url: URL;
  try {
    url = new URL(`http://${address.includes(":") ? `[${address}]` : address}/`);
  } catch {
    return false;
  }
  const host = url.hostname;
  return (host.startsWith("[") || ipv4Octets(host) !== undefined) && hostKind(host) === "loopback";
}

const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

function ipv4Octets(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The IPv4 address inside an IPv4-mapped IPv6 literal (`[::ffff:7f00:1]`, as the parser writes it). */
function mappedIpv4(host: string): number[] | undefined {
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!match) return undefined;
  const [high, low] = [Number.parseInt(match[1] ?? "0", 16), Number.parseInt(match[2] ?? "0", 16)];
  return [high >> 8, high & 255, low >> 8, low & 255];
}

function isPrivateIpv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b < 128) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local (cloud metadata services)
    (a === 172 && b >= 16 && b < 32) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

function isPrivateIpv6(address: string): boolean {
  return (
    address === "::" ||
    address === "::1" ||
    /^fe[89ab]/.test(address) || // link-local
    /^f[cd]/.test(address) || // unique local
    /^ff/.test(address) || // multicast
    address.startsWith("::ffff:") // mapped IPv4 in another spelling
  );
}

/** Why a URL a user supplied is not called. */
export type OutboundUrlProblem =
  | "invalid_url"
  | "scheme"
  | "credentials"
  | "private_address"
  | "ip_address"
  | "host_form";

export const OUTBOUND_URL_PROBLEMS: Record<OutboundUrlProblem, string> = {
  invalid_url: "not an absolute URL",
  scheme: "must be an https URL",
  credentials: "must not carry a user name or password",
  private_address: "must not name a loopback, private, link-local or internal address",
  ip_address: "must name its host by a DNS name, not an IP address",
  host_form: "must name its host without a trailing dot",
};

/** Names that are never a public service: single labels and the special-use internal suffixes. */
const INTERNAL_NAME = /(^[^.]*$)|\.(local|internal|home\.arpa)$/;

/**
 * Why the service must not call `url`, a URL a user supplied (a push endpoint, a webhook), or
 * null when it may: https, no credentials, and a host that is a public DNS name. Refused: every
 * IP literal (private ones as `private_address`, so no spelling of an internal address slips
 * through a list of ranges; public ones as `ip_address`: public services are reached by name),
 * loopback and internal names (`localhost`, `*.localhost`, single labels, `.local`, `.internal`,
 * `.home.arpa`), and a trailing dot (`localhost.`, another spelling of a name). During local work
 * (`local`), a loopback host is accepted over https or plain http: a fake service on this machine.
 */
export function outboundUrlProblem(url: string | URL, options: { local: boolean }): OutboundUrlProblem | null {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return "invalid_url";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "scheme";
  if (parsed.username || parsed.password) return "credentials";
  const kind = hostKind(parsed.hostname);
  if (kind === "loopback" && options.local && !parsed.hostname.endsWith(".")) return null;
  if (parsed.protocol !== "https:") return "scheme";
  if (kind === "loopback" || kind === "private") return "private_address";
  if (kind === "public_ip") return "ip_address";
  if (parsed.hostname.endsWith(".")) return "host_form";
  if (INTERNAL_NAME.test(parsed.hostname)) return "private_address";
  return null;
}

/**
 * A URL `outboundUrlProblem` accepted, as it is called and stored: the parser's canonical form
 * (host in lower case, default port dropped), without the fragment, which a request never carries.
 * Two spellings of one address are then one address: one webhook URL, one push endpoint.
 */
export function calledUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.href;
}
