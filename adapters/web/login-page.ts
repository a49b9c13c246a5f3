import { escapeHtml } from './login-escape.js';

/**
 * The small page a browser gets instead of a plain-text 401: a form asking for the token.
 * It submits with GET to the same address as `?token=…`, which sets the login cookie and
 * redirects back without the token. No script and no inline style, so the page's Content
 * Security Policy stays as strict as the chat's.
 */
export function loginPage(options: { path: string; where: string; wrong: boolean }): string {
  const action = escapeHtml(options.path);
  const note = options.wrong ? '<p role="alert"><strong>That token is not the right one.</strong></p>\n' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hermes: sign in</title>
</head>
<body>
<main>
<h1>hermes web chat</h1>
<p>This chat needs its token. Open the address <code>hermes gateway</code> printed (it ends in <code>?token=…</code>), or paste the token kept in <code>${escapeHtml(options.where)}</code>.</p>
${note}<form method="get" action="${action}">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus size="50">
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
