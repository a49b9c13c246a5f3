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

function refusal(host: string, address: string, range: string): string {
  return (
    `refused to fetch ${host}: ${address} is a ${range} address, not a public one ` +
    '(set web.allow_private_addresses: true to allow private, loopback and link-local addresses)'
  );
}

/** Checks addresses: the URL's literal host before connecting, and every DNS answer. */
export interface AddressPolicy {
  /** Throws BlockedAddressError when the URL's host is an IP literal in a blocked range (DNS is never asked for those). */
  checkLiteralHost(url: URL): void;
  /** A `lookup` for node:http that refuses the connection when any address of the host is blocked. */
  lookup: LookupFunction;
}

/**
 * The policy web_extract fetches under. `treatAsPublic` lists addresses to let through even
 * though their range is blocked; it exists so tests can stand up an "allowed" server on a
 * loopback address. The gateway passes nothing.
 */
export function addressPolicy(treatAsPublic: ReadonlySet<string> = new Set()): AddressPolicy {
  const blocked = (address: string) => (treatAsPublic.has(address) ? undefined : blockedRange(address));
  return {
    checkLiteralHost(url) {
      const host = bareHost(url);
      if (!ipaddr.isValid(host)) return;
      const range = blocked(host);
      if (range) throw new BlockedAddressError(refusal(url.hostname, host, range));
    },
    lookup(hostname, options, callback) {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) {
          callback(error, '', 0);
          return;
        }
        for (const entry of addresses) {
          const range = blocked(entry.address);
          if (range) {
            callback(new BlockedAddressError(refusal(hostname, entry.address, range)), '', 0);
            return;
          }
        }
        if (addresses.length === 0) callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        else if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      });
    },
  };
}
