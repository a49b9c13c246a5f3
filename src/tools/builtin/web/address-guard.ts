import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A URL whose host is, or resolves to, an address web_extract may not reach. */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'WEB_ADDRESS_BLOCKED';
}

/**
 * Why an address is off limits, or undefined when it is a public unicast one. Everything
 * that is not plain unicast is refused: private, loopback, link-local (169.254.169.254 and
 * other metadata endpoints), unique-local, unspecified, carrier-grade NAT, multicast,
 * reserved, and IPv6 forms that embed an IPv4 address.
 */
export function blockedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Refuses a URL whose host is an IP literal in a blocked range (DNS is never asked for those). */
export function checkLiteralHost(url: URL): void {
  const host = bareHost(url);
  if (!ipaddr.isValid(host)) return;
  const range = blockedRange(host);
  if (range) throw new BlockedAddressError(refusal(url.hostname, host, range));
}

function refusal(host: string, address: string, range: string): string {
  return `refused to fetch ${host}: ${address} is a ${range} address (set web.allow_private_addresses: true to allow private, loopback and link-local addresses)`;
}

/**
 * A `lookup` for node:http that resolves as usual and then refuses the connection when any
 * address of the host is in a blocked range, so a DNS name cannot smuggle in 127.0.0.1.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    for (const entry of addresses) {
      const range = blockedRange(entry.address);
      if (range) {
        callback(new BlockedAddressError(refusal(hostname, entry.address, range)), '', 0);
        return;
      }
    }
    if (addresses.length === 0) {
      callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, addresses);
    } else {
      callback(null, addresses[0].address, addresses[0].family);
    }
  });
};
