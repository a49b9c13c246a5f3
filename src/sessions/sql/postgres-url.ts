/**
 * A PostgreSQL address for messages and logs: `postgres://user@host:port/db`, never the
 * password. An address that does not parse is shown as `(unreadable address)`.
 */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `${parsed.protocol}//${user}${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return '(unreadable address)';
  }
}

/** `text` with the URL's password (as written and decoded) replaced by `***`. */
export function redactPassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text.split(url).join(describePostgresUrl(url));
  }
  if (!password) return text;
  let out = text;
  for (const secret of new Set([password, safeDecode(password)])) if (secret) out = out.split(secret).join('***');
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
