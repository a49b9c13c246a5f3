/*
 * Programs by what they do to a command's input, for the rules that follow data into a
 * shell: downloaders fetch it from the network, decoders turn encoded text back into commands.
 */

/** Programs that fetch from the network. */
export const DOWNLOADERS: ReadonlySet<string> = new Set([
  'curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'httpie', 'xh', 'lwp-download', 'lwp-request', 'GET',
  'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'tftp', 'scp', 'sftp', 'rsync', 'git-remote-http',
]);

/** Programs that turn encoded text back into commands. */
export const DECODERS: ReadonlySet<string> = new Set([
  'base64', 'base32', 'basenc', 'xxd', 'uudecode', 'openssl', 'gunzip', 'zcat', 'gzip', 'bzip2', 'bunzip2', 'bzcat',
  'xz', 'unxz', 'xzcat', 'zstd', 'unzstd', 'zstdcat', 'rev', 'tr',
]);
