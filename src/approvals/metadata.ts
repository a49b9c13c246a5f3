/*
 * Cloud metadata services hand out the machine's credentials to whoever asks from inside
 * it. Any argument naming one (by name, or by an address in any spelling inet_aton takes:
 * decimal, hex, octal, IPv4-mapped IPv6) needs the user's approval.
 */
import ipaddr from 'ipaddr.js';

export const METADATA_HOSTS: ReadonlyArray<{ host: string; reason: string }> = [
  { host: '169.254.169.254', reason: 'the cloud metadata service (AWS, GCP, Azure, OCI, DigitalOcean)' },
  { host: '169.254.170.2', reason: 'the ECS task metadata service' },
  { host: 'fd00:ec2::254', reason: "AWS's IPv6 metadata service" },
  { host: '100.100.100.200', reason: "Alibaba Cloud's metadata service" },
  { host: 'metadata.google.internal', reason: "Google Cloud's metadata service" },
  { host: 'metadata.goog', reason: "Google Cloud's metadata service" },
  { host: 'instance-data', reason: "AWS's metadata service" },
];

const ADDRESSES = new Map(METADATA_HOSTS.filter((h) => ipaddr.isValid(h.host)).map((h) => [ipaddr.parse(h.host).toNormalizedString(), h]));
const NAMES = METADATA_HOSTS.filter((h) => !ipaddr.isValid(h.host));

/** An address-like token in any spelling, normalised; undefined when it is not one. */
function address(token: string): string | undefined {
  const candidates = [token, token.replace(/:\d+$/, '')];
  for (const candidate of candidates) {
    if (!/\d/.test(candidate) || !ipaddr.isValid(candidate)) continue;
    // process() turns an IPv4-mapped IPv6 address (::ffff:169.254.169.254) into the IPv4 one.
    return ipaddr.process(candidate).toNormalizedString();
  }
  return undefined;
}

/**
 * `host` in `text` as a whole name or address, not inside a longer one: `169.254.169.2540` and
 * `metadata.google.internal.example.com` name other hosts, while `169.254.169.254.nip.io`
 * (wildcard DNS) and `metadata.google.internal.` (a trailing dot) still reach the service.
 */
function named(text: string, host: string): boolean {
  const address = /^[\d.]+$|:/.test(host);
  for (let at = text.indexOf(host); at >= 0; at = text.indexOf(host, at + 1)) {
    const before = text.slice(Math.max(0, at - 2), at);
    const after = text.slice(at + host.length, at + host.length + 2);
    const longer = address ? /\d$|\d\.$/.test(before) || /^\.?\d/.test(after) : /[a-z0-9-]$/.test(before) || /^\.?[a-z0-9-]/.test(after);
    if (!longer) return true;
  }
  return false;
}

/** The metadata service a word names, or undefined. */
export function metadataIn(word: string): string | undefined {
  const lower = word.toLowerCase();
  for (const name of NAMES) if (named(lower, name.host)) return `${name.host}, ${name.reason}`;
  for (const [, entry] of ADDRESSES) if (named(lower, entry.host)) return `${entry.host}, ${entry.reason}`;
  if (!/[\d]/.test(lower)) return undefined;
  for (const token of lower.split(/[^0-9a-fx.:]+/)) {
    // No spelling of an address is longer; a long run of hex digits is not one, and would be slow to try.
    if (token.length > 64) continue;
    const trimmed = token.replace(/^[.:]+|[.:]+$/g, '');
    if (trimmed.length < 7 && !/^0x/.test(trimmed)) continue;
    const normal = address(trimmed);
    const entry = normal && ADDRESSES.get(normal);
    if (entry) return `${token}, ${entry.reason}`;
  }
  return undefined;
}
