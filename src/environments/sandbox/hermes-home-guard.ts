import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { inside, realOrSelf } from './system-view.js';

/*
 * HERMES_HOME is kept out of the sandbox by what it is on disk — its device and inode — and
 * not by how its path is spelled: a path through a symlink, a bind mount of a folder above
 * it, a mount point inside a bound folder all lead to the same directory, and all are found.
 */

interface DiskId {
  dev: number;
  ino: number;
}

function diskId(path: string): DiskId | undefined {
  try {
    const info = statSync(path);
    return { dev: info.dev, ino: info.ino };
  } catch {
    return undefined;
  }
}

const same = (a: DiskId | undefined, b: DiskId | undefined): boolean => a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;

/** `path` (resolved) and each folder above it up to `/`, with their disk ids. */
function ancestry(path: string): { path: string; id: DiskId | undefined }[] {
  const out: { path: string; id: DiskId | undefined }[] = [];
  let current = realOrSelf(path);
  for (;;) {
    out.push({ path: current, id: diskId(current) });
    const parent = dirname(current);
    if (parent === current) return out;
    current = parent;
  }
}

/** Mount points of this host's mount table (octal escapes decoded). */
function mountPoints(): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const field = line.split(' ')[4];
    return field ? [field.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8)))] : [];
  });
}

/**
 * Where `home` appears in a view of `folder` mounted at `folder` (as spelled): the folder
 * itself or a mount point below it that is `home` or one of the folders above it. Empty when
 * `folder` does not show `home` at all.
 */
export function homeLocations(folder: string, home: string): string[] {
  const homeUp = ancestry(home);
  const realFolder = realOrSelf(folder);
  const found = new Set<string>();
  const probe = (candidate: string, seenAs: string) => {
    const id = diskId(candidate);
    for (const step of homeUp) if (same(id, step.id)) found.add(join(seenAs, relative(step.path, homeUp[0].path)));
  };
  probe(realFolder, folder);
  for (const point of mountPoints()) {
    if (point !== realFolder && inside(realFolder, point)) probe(point, join(folder, relative(realFolder, point)));
  }
  return [...found];
}

/** True when `path` is `home` or inside it, however either is spelled (a folder above `path` is `home` on disk). */
export function insideHome(path: string, home: string): boolean {
  const homeId = diskId(home);
  return homeId !== undefined && ancestry(path).some((step) => same(step.id, homeId));
}

/**
 * Why a host path cannot be shown to the sandbox, or undefined when it can: it is `/`, it
 * holds `home` (directly, through a symlink or bind mount, or through a mount point below
 * it), or it is inside `home`.
 */
export function exposesHome(path: string, home: string): string | undefined {
  if (realOrSelf(path) === '/') return 'it is the root folder, which holds everything, HERMES_HOME included';
  if (insideHome(path, home)) return `it is inside HERMES_HOME (${home})`;
  const shown = homeLocations(path, home);
  if (shown.length > 0) return `it holds HERMES_HOME (${home}), visible in it as ${shown[0]}`;
  return undefined;
}
