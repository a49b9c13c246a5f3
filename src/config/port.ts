/** Which ports a setting takes: 1 to 65535, or with `anyFree` also 0 (the system picks a free one). */
export interface PortRange {
  anyFree?: boolean;
}

/** The range in words, for every message about a port: the schema's, the flags', the variables'. */
export function portRangeText(range: PortRange = {}): string {
  return range.anyFree ? 'a port number from 0 to 65535 (0 picks any free port)' : 'a port number from 1 to 65535';
}

/** The lowest port the range takes. */
export function lowestPort(range: PortRange = {}): number {
  return range.anyFree ? 0 : 1;
}

export const HIGHEST_PORT = 65_535;

/**
 * A port written as text (a flag, a variable): digits only, within the range; undefined for
 * anything else. The one reading of a port outside config.yaml (whose schema uses the same range).
 */
export function readPort(text: string, range: PortRange = {}): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,5}$/.test(trimmed)) return undefined;
  const port = Number(trimmed);
  return port >= lowestPort(range) && port <= HIGHEST_PORT ? port : undefined;
}
