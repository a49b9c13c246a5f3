/* global fetch */
// The web chat's JSON API, as the page calls it. Writes are JSON so that the server can
// refuse cross-site form posts; the token (when one is set) travels in a same-site cookie.

/** Thrown when the gateway cannot be reached at all (it stopped, the network went): the page reconnects. */
export class OfflineError extends Error {
  constructor() {
    super('The gateway is not reachable (is it still running?). The page reconnects by itself.');
    this.name = 'OfflineError';
  }
}

const listeners = new Set();
/** Hears `true` when a request got through and `false` when the gateway could not be reached. */
export const onReachable = (listener) => listeners.add(listener);
const reachable = (yes) => {
  for (const listener of listeners) listener(yes);
};

async function call(path, init) {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    // fetch rejects with a bare "Failed to fetch" when nothing answers: say what it means.
    reachable(false);
    throw new OfflineError();
  }
  reachable(true);
  const type = response.headers.get('content-type') || '';
  const data = type.includes('application/json') ? await response.json() : { error: (await response.text()).trim() };
  if (!response.ok) throw new Error(data.error || `${init.method} ${path} failed with HTTP ${response.status}`);
  return data;
}

function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return call(path, init);
}

const thread = (id) => `/api/threads/${encodeURIComponent(id)}`;

/** `{ model: { configured, name, baseUrl, apiKeyEnv }, configFile, envFile }` */
export const getStatus = () => request('GET', '/api/status');
/** `[{ id, title, updatedAt }]`, most recent first; with `query`, those whose title or messages contain its words. */
export const listThreads = (query = '') =>
  request('GET', query ? `/api/threads?q=${encodeURIComponent(query)}` : '/api/threads').then((data) => data.threads);
/** Starts a thread; resolves to its id. */
export const createThread = () => request('POST', '/api/threads', {}).then((data) => data.id);
/** Gives a thread a title of the user's own. */
export const renameThread = (id, title) => request('PATCH', thread(id), { title });
/** Deletes a thread (its transcript and files). */
export const deleteThread = (id) => request('DELETE', thread(id), {});
/** Sends a message to a thread, with the ids of files uploaded for it (the answer arrives on the event stream). */
export const sendMessage = (threadId, text, files = []) =>
  request('POST', `${thread(threadId)}/messages`, files.length > 0 ? { text, files } : { text });

/** Sends a press of an approval button: the button's data (`hermes:approval:<id>:<choice>`), for that request only. */
export const pressApproval = (threadId, data) => request('POST', `${thread(threadId)}/approval`, { data });

/** `{ provider, baseUrl, model, apiKeyEnv, keySet, canSave, pairing }`: the key itself never comes back. */
export const getSettings = () => request('GET', '/api/settings');
/** The endpoint's model ids, `{ models, note? }`: asked with the given key, or the saved one only at its own base URL (`note` says when it was not sent). */
export const listModels = (settings) => request('POST', '/api/settings/models', settings);
/** One short request to the model: `{ reply, note? }`, what it said (`note` as for listModels). */
export const testSettings = (settings) => request('POST', '/api/settings/test', settings);
/** Tests, saves and applies the settings: `{ saved, reply, needsRestart, settings }`. */
export const saveSettings = (settings) => request('POST', '/api/settings', settings);
/** The strangers waiting with a pairing code, `[{ platform, userId, userName, minutes }]` (the login only). */
export const listPairing = () => request('GET', '/api/settings/pairing').then((data) => data.waiting);
/** Lets one waiting stranger in, or refuses them: `{ platform, userId }`. */
export const answerPairing = (who, answer) => request('POST', `/api/settings/pairing/${answer === 'approve' ? 'approve' : 'refuse'}`, who);

/**
 * Uploads one file as the raw body (its name in a header); resolves to `{ id, name, mimeType, size }`.
 * The X-Hermes-Upload header stands in for JSON in the server's same-origin check.
 */
export async function uploadFile(threadId, file) {
  const data = await call(`${thread(threadId)}/uploads`, {
    method: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': file.type || 'application/octet-stream',
      'X-Hermes-Upload': '1',
      'X-Hermes-File-Name': encodeURIComponent(file.name || 'pasted'),
    },
    body: file,
  });
  return data.upload;
}
/** The address of a thread's server-sent event stream. */
export const eventsUrl = (threadId) => `${thread(threadId)}/events`;
