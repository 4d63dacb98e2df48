import { describe, expect, it } from "vitest";
import { hostKind, isLoopbackAddress, outboundUrlProblem } from "../../src/lib/address-policy";

// The address policy of every URL a user supplies that the service calls (push endpoints, and
// webhooks): each spelling of an address is judged as the address it stands for.

/** Addresses that are never a public service, in the spellings a URL parser accepts. */
const INTERNAL: [string, string][] = [
  ["a private 10/8 address", "https://10.0.0.1/x"],
  ["private 172.16/12", "https://172.16.5.4/x"],
  ["private 192.168/16", "https://192.168.1.1/x"],
  ["link-local (cloud metadata)", "https://169.254.169.254/latest/meta-data/"],
  ["carrier-grade NAT", "https://100.64.0.1/x"],
  ["this network", "https://0.0.0.0/x"],
  ["multicast", "https://224.0.0.1/x"],
  ["broadcast", "https://255.255.255.255/x"],
  ["loopback beyond 127.0.0.1", "https://127.0.0.2/x"],
  ["loopback, short form", "https://127.1/x"],
  ["loopback in decimal", "https://2130706433/x"],
  ["loopback in hex", "https://0x7f000001/x"],
  ["loopback in octal", "https://0177.0.0.1/x"],
  ["private in decimal", "https://167772161/x"],
  ["IPv6 loopback", "https://[::1]/x"],
  ["IPv6 unspecified", "https://[::]/x"],
  ["IPv4-mapped loopback, hex", "https://[::ffff:7f00:1]/x"],
  ["IPv4-mapped loopback, dotted", "https://[::ffff:127.0.0.1]/x"],
  ["IPv4-mapped loopback, written out", "https://[0:0:0:0:0:ffff:7f00:0001]/x"],
  ["IPv4-mapped metadata address", "https://[::ffff:169.254.169.254]/x"],
  ["IPv6 unique local", "https://[fd00::1]/x"],
  ["IPv6 link-local", "https://[fe80::1]/x"],
  ["IPv6 multicast", "https://[ff02::1]/x"],
  ["localhost", "https://localhost/x"],
  ["localhost in capitals", "https://LOCALHOST/x"],
  ["a subdomain of localhost", "https://foo.localhost/x"],
  ["a single-label name", "https://intranet/x"],
  ["an .internal name", "https://metadata.google.internal/x"],
  ["a .local name", "https://printer.local/x"],
  ["a .home.arpa name", "https://router.home.arpa/x"],
];

describe("outboundUrlProblem: outside local work", () => {
  const outside = { local: false };

  it("accepts https to a public DNS name, with a port, path and query", () => {
    for (const url of [
      "https://fcm.googleapis.com/fcm/send/abc",
      "https://updates.push.services.mozilla.com/wpush/v2/abc",
      "https://web.push.apple.com:443/QGx?x=1",
      "https://push.example.test/push/x",
    ]) {
      expect(outboundUrlProblem(url, outside), url).toBeNull();
    }
  });

  it.each(INTERNAL)("refuses %s (%s) as a private address", (_what, url) => {
    expect(outboundUrlProblem(url, outside)).toBe("private_address");
  });

  it.each([
    ["a public IPv4 address", "https://93.184.216.34/x", "ip_address"],
    ["a public IPv4 address in decimal", "https://1572395042/x", "ip_address"],
    ["a public IPv6 address", "https://[2606:4700::1111]/x", "ip_address"],
    ["NAT64 of loopback", "https://[64:ff9b::7f00:1]/x", "ip_address"],
    ["an IPv4-compatible loopback", "https://[::127.0.0.1]/x", "ip_address"],
    ["a trailing dot", "https://push.example.test./x", "host_form"],
    ["localhost with a trailing dot", "https://localhost./x", "private_address"],
    ["credentials", "https://user:secret@push.example.test/x", "credentials"],
    ["a user name alone", "https://user@push.example.test/x", "credentials"],
    ["plain http", "http://push.example.test/x", "scheme"],
    ["plain http to loopback", "http://127.0.0.1:9999/x", "scheme"],
    ["ftp", "ftp://push.example.test/x", "scheme"],
    ["javascript:", "javascript:alert(1)", "scheme"],
    ["no URL", "push.example.test/x", "invalid_url"],
  ])("refuses %s (%s): %s", (_what, url, problem) => {
    expect(outboundUrlProblem(url, outside)).toBe(problem);
  });
});

describe("outboundUrlProblem: during local work", () => {
  const local = { local: true };

  it("accepts a loopback host over https or plain http (a fake service on this machine)", () => {
    for (const url of ["http://127.0.0.1:9999/x", "http://localhost:9999/x", "https://[::1]/x", "http://127.0.0.2/x"]) {
      expect(outboundUrlProblem(url, local), url).toBeNull();
    }
  });

  it("still refuses every other internal address, and plain http elsewhere", () => {
    for (const [what, url] of INTERNAL) {
      if (hostKind(new URL(url).hostname) === "loopback") continue;
      expect(outboundUrlProblem(url, local), what).toBe("private_address");
    }
    expect(outboundUrlProblem("http://push.example.test/x", local)).toBe("scheme");
    expect(outboundUrlProblem("http://localhost./x", local)).toBe("scheme");
    expect(outboundUrlProblem("http://user:pw@127.0.0.1/x", local)).toBe("credentials");
  });
});

describe("isLoopbackAddress: an address as the platform reports a connection's peer", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.0.0.2", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["192.0.2.2", false],
    ["10.0.0.1", false],
    ["fd00::2", false],
    ["::", false],
    ["localhost", false],
    ["", false],
    ["127.0.0.1, 203.0.113.9", false],
  ])("%s: %s", (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});
