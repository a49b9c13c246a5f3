/* global document, window, history, EventSource, requestAnimationFrame, URLSearchParams, setInterval, clearInterval, setTimeout, clearTimeout, navigator, MediaRecorder, File */
// The web chat page: a thread list, the open thread's entries (kept live over server-sent
// events) and a message box. No build step: plain ES modules, served as they are.
import { createThread, eventsUrl, getStatus, onReachable, pressApproval, sendMessage, uploadFile } from './api.js';
import { icon } from './icons.js';
import { formatSize, h, renderEntry } from './render.js';
import { renderSetup } from './setup.js';
import { threadList } from './threads.js';

const $ = (id) => document.getElementById(id);
const els = {
  sidebar: $('sidebar'),
  toggle: $('toggle-threads'),
  newThread: $('new-thread'),
  list: $('thread-list'),
  noThreads: $('no-threads'),
  title: $('thread-title'),
  busy: $('busy'),
  setup: $('setup'),
  messages: $('messages'),
  empty: $('empty'),
  error: $('error'),
  form: $('composer'),
  input: $('input'),
  send: $('send'),
  attach: $('attach'),
  fileInput: $('file-input'),
  record: $('record'),
  pending: $('pending'),
  elapsed: $('elapsed'),
  stop: $('stop'),
  connection: $('connection'),
  settings: $('open-settings'),
  rename: $('rename-thread'),
  remove: $('delete-thread'),
  search: $('search-threads'),
};

// `pending`: files uploaded (or uploading) for the next message, as { upload?, node }.
// Icons are SVG (no emoji font needed); the buttons' names are their aria-labels.
els.rename.append(icon('pencil'));
els.remove.append(icon('trash'));
els.settings.append(icon('gear'));
els.attach.append(icon('paperclip'));
els.record.append(icon('mic'));
els.stop.prepend(icon('stop'));
els.toggle.prepend(icon('menu'));
els.newThread.prepend(icon('plus'));

// `busySince`: when the running turn started (its message's time), for the elapsed time.
const state = { threadId: undefined, threads: [], events: undefined, nodes: new Map(), pending: [], entries: new Map(), busySince: undefined, status: undefined };
const threads = threadList({ list: els.list, empty: els.noThreads, state, onChange: () => renderTitle() });

function showError(message) {
  els.error.textContent = message || '';
  els.error.hidden = !message;
}

function nearBottom() {
  const m = els.messages;
  return m.scrollHeight - m.scrollTop - m.clientHeight < 80;
}

function scrollToEnd() {
  requestAnimationFrame(() => {
    els.messages.scrollTop = els.messages.scrollHeight;
  });
}

let ticker;
function showElapsed() {
  const seconds = Math.max(0, Math.floor((Date.now() - (state.busySince ?? Date.now())) / 1000));
  els.elapsed.textContent = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** While the agent works: "Working…", the time since the message, and the Stop button. */
function setBusy(busy) {
  els.busy.textContent = busy ? 'Working…' : '';
  els.busy.classList.toggle('on', busy);
  els.stop.hidden = !busy;
  els.elapsed.hidden = !busy;
  clearInterval(ticker);
  if (!busy) return;
  const users = [...state.entries.values()].filter((entry) => entry.kind === 'user');
  state.busySince = users.length > 0 ? users[users.length - 1].at : Date.now();
  showElapsed();
  ticker = setInterval(showElapsed, 1000);
}

/** The connection indicator: "Connected", or "Reconnecting…" while the gateway cannot be reached. */
function setConnection(online) {
  els.connection.dataset.state = online ? 'online' : 'offline';
  els.connection.textContent = online ? 'Connected' : 'Reconnecting…';
  if (online && els.error.dataset.offline === 'true') showError('');
  // While the page cannot reach the gateway it does not know whether the agent works: no "Working…" or Stop
  // (the snapshot on reconnecting says again).
  if (!online) setBusy(false);
  if (!online) waitForGateway();
}

// With no thread open nothing else notices the gateway coming back: ask now and then.
let probe;
function waitForGateway() {
  if (probe || (state.events && state.events.readyState !== EventSource.CLOSED)) return;
  probe = setTimeout(() => {
    probe = undefined;
    getStatus().catch(() => undefined);
  }, 2000);
}
onReachable(setConnection);

function showFailure(error) {
  showError(error.message);
  els.error.dataset.offline = String(error.name === 'OfflineError');
}

/** Adds an entry, or replaces the element of the entry with the same id. */
function upsert(entry) {
  const follow = nearBottom();
  const previous = state.nodes.get(entry.id);
  const node = renderEntry(entry, previous);
  state.entries.set(entry.id, entry);
  if (previous) previous.replaceWith(node);
  else els.messages.append(node);
  state.nodes.set(entry.id, node);
  els.empty.hidden = true;
  if (follow || !previous) scrollToEnd();
}

function renderTitle() {
  // A search that hides the open thread from the list leaves it open: its title, rename and delete stay.
  const listed = state.threads.find((thread) => thread.id === state.threadId);
  if (listed) state.current = listed;
  else if (state.current?.id !== state.threadId) state.current = undefined;
  const current = listed ?? state.current;
  els.title.textContent = current ? current.title : state.threadId ? 'Web chat' : 'New thread';
  els.rename.hidden = !current;
  els.remove.hidden = !current;
  for (const link of els.list.querySelectorAll('a[data-thread]')) {
    if (link.dataset.thread === state.threadId) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

const refreshThreads = () => threads.refresh();

function setSidebar(open) {
  els.sidebar.classList.toggle('open', open);
  els.toggle.setAttribute('aria-expanded', String(open));
}

/** Shows a thread and follows its event stream (which starts with a snapshot of its entries). */
function openThread(id, { push = true } = {}) {
  if (state.events) state.events.close();
  state.threadId = id;
  state.nodes.clear();
  state.entries.clear();
  els.messages.replaceChildren(els.empty);
  els.empty.hidden = false;
  setBusy(false);
  showError('');
  if (push) history.replaceState(null, '', id ? `?thread=${encodeURIComponent(id)}` : window.location.pathname);
  state.events = undefined;
  threads.render();
  setSidebar(false);
  if (!id) return;
  follow(id);
}

/**
 * Follows the thread's event stream. The browser reconnects a dropped stream by itself (and
 * the snapshot it gets then brings the page up to date); a stream the server refused is
 * opened again after a pause, while the indicator says the page is reconnecting.
 */
function follow(id, delay = 1000) {
  const events = new EventSource(eventsUrl(id));
  state.events = events;
  events.addEventListener('open', () => setConnection(true));
  events.addEventListener('error', () => {
    if (state.events !== events) return;
    setConnection(false);
    if (events.readyState !== EventSource.CLOSED) return;
    setTimeout(() => {
      if (state.events === events) follow(id, Math.min(delay * 2, 10_000));
    }, delay);
  });
  events.addEventListener('deleted', () => {
    if (state.threadId === id) openThread(undefined);
    void refreshThreads();
  });
  events.addEventListener('snapshot', (message) => {
    const data = JSON.parse(message.data);
    state.nodes.clear();
    state.entries.clear();
    els.messages.replaceChildren(els.empty);
    els.empty.hidden = data.entries.length > 0;
    for (const entry of data.entries) upsert(entry);
    setBusy(data.busy);
    els.messages.setAttribute('data-ready', 'true');
  });
  events.addEventListener('entry', (message) => {
    const { entry } = JSON.parse(message.data);
    upsert(entry);
    if (entry.kind === 'user' && state.threads[0]?.id !== id) void refreshThreads();
  });
  events.addEventListener('busy', (message) => setBusy(JSON.parse(message.data).busy));
}

/** Opens an empty draft: the thread is made when its first message (or file) is sent, so none is left empty. */
function newThread() {
  openThread(undefined);
  els.input.focus();
}

/** The open thread's id, making the thread on the server first when this is a draft. */
async function ensureThread() {
  if (state.threadId) return state.threadId;
  const id = await createThread();
  openThread(id);
  return id;
}

function renderPending() {
  els.pending.hidden = state.pending.length === 0;
}

/** Uploads files for the next message at once; each shows as a chip that can be removed. */
async function attachFiles(files) {
  if (files.length === 0) return;
  showError('');
  const id = await ensureThread();
  await Promise.all(
    [...files].map(async (file) => {
      const item = { upload: undefined, node: h('li', { className: 'chip uploading' }, `Uploading ${file.name || 'pasted file'}…`) };
      state.pending.push(item);
      els.pending.append(item.node);
      renderPending();
      try {
        item.upload = await uploadFile(id, file);
        const remove = h('button', { type: 'button', className: 'ghost chip-remove', 'aria-label': `Remove ${item.upload.name}` }, icon('close'));
        remove.addEventListener('click', () => {
          state.pending = state.pending.filter((other) => other !== item);
          item.node.remove();
          renderPending();
        });
        item.node.replaceChildren(h('span', {}, `${item.upload.name} — ${formatSize(item.upload.size)}`), remove);
        item.node.className = 'chip';
      } catch (error) {
        state.pending = state.pending.filter((other) => other !== item);
        item.node.remove();
        renderPending();
        showFailure(error);
      }
    }),
  );
}

async function submit() {
  const text = els.input.value;
  if (state.pending.some((item) => !item.upload)) return showError('Wait for the files to finish uploading.');
  const files = state.pending.map((item) => item.upload.id);
  if (!text.trim() && files.length === 0) return;
  showError('');
  els.send.disabled = true;
  if (state.status?.model.configured) els.setup.hidden = true;
  try {
    const id = await ensureThread();
    await sendMessage(id, text, files);
    els.input.value = '';
    state.pending = [];
    els.pending.replaceChildren();
    renderPending();
    await refreshThreads();
  } catch (error) {
    showFailure(error);
  } finally {
    els.send.disabled = false;
    els.input.focus();
  }
}

els.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void submit();
});

// An approval button sends its typed press (the request and the choice), as a press does on the
// other platforms; the gateway answers that request only and settles it.
els.messages.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-press]');
  if (!button || !state.threadId) return;
  const group = button.closest('.approval-actions');
  for (const other of group.querySelectorAll('button')) other.disabled = true;
  pressApproval(state.threadId, button.dataset.press).catch((error) => {
    for (const other of group.querySelectorAll('button')) other.disabled = false;
    showError(error.message);
  });
});

els.input.addEventListener('keydown', (event) => {
  // Enter sends; Shift+Enter is a new line; an IME composition keeps its Enter.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    void submit();
  }
});

els.attach.addEventListener('click', () => els.fileInput.click());

// The record button: a voice note from the microphone (MediaRecorder), uploaded like any file once stopped.
let recorder;
els.record.addEventListener('click', () => toggleRecording().catch((error) => showError(error.message)));

async function toggleRecording() {
  if (recorder) return recorder.stop();
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') throw new Error('This browser cannot record audio here.');
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const chunks = [];
  const made = new MediaRecorder(stream);
  made.addEventListener('dataavailable', (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  });
  made.addEventListener('stop', () => {
    for (const track of stream.getTracks()) track.stop();
    recorder = undefined;
    els.record.classList.remove('recording');
    els.record.setAttribute('aria-pressed', 'false');
    els.record.setAttribute('aria-label', 'Record a voice note');
    const type = (made.mimeType || 'audio/webm').split(';')[0];
    const file = new File(chunks, `voice-note.${type.endsWith('ogg') ? 'ogg' : 'webm'}`, { type });
    attachFiles([file]).catch((error) => showError(error.message));
  });
  made.start();
  recorder = made;
  els.record.classList.add('recording');
  els.record.setAttribute('aria-pressed', 'true');
  els.record.setAttribute('aria-label', 'Stop recording');
}
els.fileInput.addEventListener('change', () => {
  const files = [...els.fileInput.files];
  els.fileInput.value = '';
  attachFiles(files).catch((error) => showError(error.message));
});

// Files dropped anywhere on the conversation, or pasted into the message box (a screenshot), are attached.
const chat = document.querySelector('main.chat');
chat.addEventListener('dragover', (event) => {
  if (!event.dataTransfer || ![...event.dataTransfer.types].includes('Files')) return;
  event.preventDefault();
  chat.classList.add('dropping');
});
chat.addEventListener('dragleave', () => chat.classList.remove('dropping'));
chat.addEventListener('drop', (event) => {
  chat.classList.remove('dropping');
  if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
  event.preventDefault();
  attachFiles([...event.dataTransfer.files]).catch((error) => showError(error.message));
});
els.input.addEventListener('paste', (event) => {
  const files = event.clipboardData ? [...event.clipboardData.files] : [];
  if (files.length === 0) return;
  event.preventDefault();
  attachFiles(files).catch((error) => showError(error.message));
});

els.newThread.addEventListener('click', () => newThread());

// Stop sends /stop, as on every platform: the gateway ends the turn (and a running script).
els.stop.addEventListener('click', () => {
  if (!state.threadId) return;
  els.stop.disabled = true;
  sendMessage(state.threadId, '/stop')
    .catch(showFailure)
    .finally(() => (els.stop.disabled = false));
});

els.rename.addEventListener('click', () => {
  if (state.threadId) threads.rename(state.threadId).catch(showFailure);
});
els.remove.addEventListener('click', () => {
  const id = state.threadId;
  if (!id) return;
  threads
    .remove(id)
    .then((deleted) => deleted && state.threadId === id && openThread(undefined))
    .catch(showFailure);
});

let searching;
els.search.addEventListener('input', () => {
  clearTimeout(searching);
  searching = setTimeout(() => threads.search(els.search.value).catch(showFailure), 150);
});

/** The form says it was saved and stays until the next message is sent (or Settings closes it). */
function onSaved(settings) {
  if (state.status) state.status.model = { ...state.status.model, configured: true, name: settings.model, baseUrl: settings.baseUrl };
  els.settings.setAttribute('aria-expanded', 'false');
}

async function showSettings(open) {
  const status = await getStatus();
  state.status = status;
  els.settings.setAttribute('aria-expanded', String(open));
  await renderSetup(els.setup, status, {
    open,
    onSaved,
  });
}
els.settings.addEventListener('click', () => {
  const open = els.setup.hidden;
  showSettings(open || !state.status?.model.configured).catch(showFailure);
});

els.toggle.addEventListener('click', () => setSidebar(!els.sidebar.classList.contains('open')));

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && els.sidebar.classList.contains('open')) {
    setSidebar(false);
    els.toggle.focus();
  }
});

els.list.addEventListener('click', (event) => {
  const link = event.target.closest('a[data-thread]');
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  openThread(link.dataset.thread);
  els.input.focus();
});

async function main() {
  try {
    const [status] = await Promise.all([getStatus(), refreshThreads()]);
    state.status = status;
    await renderSetup(els.setup, status, { onSaved });
    setConnection(true);
    const wanted = new URLSearchParams(window.location.search).get('thread');
    const known = state.threads.find((thread) => thread.id === wanted);
    openThread(known ? known.id : state.threads[0]?.id, { push: Boolean(known) || state.threads.length > 0 });
  } catch (error) {
    showError(`The web chat could not load: ${error.message}`);
    if (error.name === 'OfflineError') setTimeout(() => window.location.reload(), 3000);
  }
  document.body.setAttribute('data-ready', 'true');
}

void main();
