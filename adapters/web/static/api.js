/* global fetch */
// The web chat's JSON API, as the page calls it. Writes are JSON so that the server can
// refuse cross-site form posts; the token (when one is set) travels in a same-site cookie.

async function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const type = response.headers.get('content-type') || '';
  const data = type.includes('application/json') ? await response.json() : { error: (await response.text()).trim() };
  if (!response.ok) throw new Error(data.error || `${method} ${path} failed with HTTP ${response.status}`);
  return data;
}

/** `{ model: { configured, name, baseUrl, apiKeyEnv }, configFile, envFile }` */
export const getStatus = () => request('GET', '/api/status');
/** `[{ id, title, updatedAt }]`, most recent first. */
export const listThreads = () => request('GET', '/api/threads').then((data) => data.threads);
/** Starts a thread; resolves to its id. */
export const createThread = () => request('POST', '/api/threads', {}).then((data) => data.id);
/** Sends a message to a thread, with the ids of files uploaded for it (the answer arrives on the event stream). */
export const sendMessage = (threadId, text, files = []) =>
  request('POST', `/api/threads/${encodeURIComponent(threadId)}/messages`, files.length > 0 ? { text, files } : { text });

/**
 * Uploads one file as the raw body (its name in a header); resolves to `{ id, name, mimeType, size }`.
 * The X-Hermes-Upload header stands in for JSON in the server's same-origin check.
 */
export async function uploadFile(threadId, file) {
  const response = await fetch(`/api/threads/${encodeURIComponent(threadId)}/uploads`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      'Content-Type': file.type || 'application/octet-stream',
      'X-Hermes-Upload': '1',
      'X-Hermes-File-Name': encodeURIComponent(file.name || 'pasted'),
    },
    body: file,
  });
  const type = response.headers.get('content-type') || '';
  const data = type.includes('application/json') ? await response.json() : { error: (await response.text()).trim() };
  if (!response.ok) throw new Error(data.error || `upload failed with HTTP ${response.status}`);
  return data.upload;
}
/** The address of a thread's server-sent event stream. */
export const eventsUrl = (threadId) => `/api/threads/${encodeURIComponent(threadId)}/events`;
