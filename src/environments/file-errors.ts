/** The errno codes the file operations fail with, and what each means to the model. */
const MEANINGS = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
  EIO: 'input/output error',
} as const;

export type FileErrorCode = keyof typeof MEANINGS;

/** An Error with an errno `code`, as node:fs throws them, for file operations that run elsewhere. */
export function fileError(code: FileErrorCode, path: string, size?: number, detail?: string): NodeJS.ErrnoException & { size?: number } {
  const more = detail ? ` (${detail})` : '';
  return Object.assign(new Error(`${code}: ${MEANINGS[code]}${more}, '${path}'`), { code, path, ...(size !== undefined ? { size } : {}) });
}

/** Words in a shell's (or coreutils') error message, and the errno they stand for; the first that matches wins. */
const MESSAGE_CODES: [RegExp, FileErrorCode][] = [
  [/read-only file system/i, 'EROFS'],
  [/permission denied/i, 'EACCES'],
  [/is a directory/i, 'EISDIR'],
  [/not a directory/i, 'ENOTDIR'],
  // `mkdir -p` over a name that is there but no folder (a file, a symlink to nothing in this view).
  [/file exists/i, 'ENOTDIR'],
  [/no such file/i, 'ENOENT'],
];

/** The errno a command's error text names, or undefined when it names none. */
export function codeFromMessage(text: string): FileErrorCode | undefined {
  return MESSAGE_CODES.find(([words]) => words.test(text))?.[1];
}
