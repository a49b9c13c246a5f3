/** Longest name kept, in UTF-8 bytes (most file systems take 255). */
const MAX_NAME_BYTES = 120;

/** What a file that came without a name is called, by what the platform says it is. */
const UNNAMED: Record<string, string> = {
  photo: 'photo',
  voice: 'voice',
  audio: 'audio',
  video: 'video',
  document: 'file',
  file: 'file',
};

/**
 * A file name that is safe in a workspace: the last part of what the sender gave (no folders,
 * so `../../.bashrc` is `bashrc`), letters, digits, `.`, `_`, `-` and `+` only (control
 * characters, newlines, spaces and quotes become `_`), not starting with a dot or a dash, at
 * most 120 bytes with its extension kept. An empty result takes the kind's name and `ext`.
 */
export function safeFileName(given: string | undefined, kind = 'file', ext = ''): string {
  const last = (given ?? '').normalize('NFC').split(/[/\\]/).pop() ?? '';
  let name = last
    .replace(/[^\p{L}\p{N}._+-]/gu, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[._-]+/, '')
    .replace(/[._]+$/, '');
  if (!/[\p{L}\p{N}]/u.test(name)) name = '';
  if (!name) name = `${UNNAMED[kind] ?? 'file'}${ext ? `.${ext}` : ''}`;
  return fitName(name);
}

/** `name` cut to MAX_NAME_BYTES, keeping a short extension. */
function fitName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 12 ? name.slice(dot) : '';
  let stem = name.slice(0, name.length - ext.length);
  while (Buffer.byteLength(stem + ext) > MAX_NAME_BYTES) stem = [...stem].slice(0, -1).join('');
  return stem + ext;
}

/** `name`, or `name-2`, `name-3`… (before the extension) when `taken` has it; the result is added to `taken`. */
export function uniqueName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem}-${n}${ext}`;
  taken.add(candidate);
  return candidate;
}

/** `532 B`, `12 KB`, `3.4 MB`, `1.2 GB` (powers of 1024). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value >= 10 || unit === 0 ? Math.round(value).toString() : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}
