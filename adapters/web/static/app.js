/* global document, window, history, EventSource, requestAnimationFrame, URLSearchParams */
// The web chat page: a thread list, the open thread's entries (kept live over server-sent
// events) and a message box. No build step: plain ES modules, served as they are.
import { createThread, eventsUrl, getStatus, listThreads, sendMessage, uploadFile } from './api.js';
import { formatSize, h, renderEntry } from './render.js';
import { renderSetup } from './setup.js';

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
  pending: $('pending'),
};

// `pending`: files uploaded (or uploading) for the next message, as { upload?, node }.
const state = { threadId: undefined, threads: [], events: undefined, nodes: new Map(), pending: [] };

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

function setBusy(busy) {
  els.busy.textContent = busy ? 'Working…' : '';
  els.busy.classList.toggle('on', busy);
}

/** Adds an entry, or replaces the element of the entry with the same id. */
function upsert(entry) {
  const follow = nearBottom();
  const previous = state.nodes.get(entry.id);
  const node = renderEntry(entry, previous);
  if (previous) previous.replaceWith(node);
  else els.messages.append(node);
  state.nodes.set(entry.id, node);
  els.empty.hidden = true;
  if (follow || !previous) scrollToEnd();
}

function renderThreads() {
  els.list.replaceChildren(
    ...state.threads.map((thread) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `?thread=${encodeURIComponent(thread.id)}`,
            className: 'thread-link',
            'data-thread': thread.id,
            'aria-current': thread.id === state.threadId ? 'page' : undefined,
          },
          thread.title,
        ),
      ),
    ),
  );
  els.noThreads.hidden = state.threads.length > 0;
  const current = state.threads.find((thread) => thread.id === state.threadId);
  els.title.textContent = current ? current.title : 'Web chat';
}

async function refreshThreads() {
  state.threads = await listThreads();
  renderThreads();
}

function setSidebar(open) {
  els.sidebar.classList.toggle('open', open);
  els.toggle.setAttribute('aria-expanded', String(open));
}

/** Shows a thread and follows its event stream (which starts with a snapshot of its entries). */
function openThread(id, { push = true } = {}) {
  if (state.events) state.events.close();
  state.threadId = id;
  state.nodes.clear();
  els.messages.replaceChildren(els.empty);
  els.empty.hidden = false;
  setBusy(false);
  showError('');
  if (push) history.replaceState(null, '', id ? `?thread=${encodeURIComponent(id)}` : window.location.pathname);
  renderThreads();
  setSidebar(false);
  if (!id) return;
  const events = new EventSource(eventsUrl(id));
  state.events = events;
  events.addEventListener('snapshot', (message) => {
    const data = JSON.parse(message.data);
    state.nodes.clear();
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

async function newThread() {
  const id = await createThread();
  await refreshThreads();
  openThread(id);
  els.input.focus();
  return id;
}

function renderPending() {
  els.pending.hidden = state.pending.length === 0;
}

/** Uploads files for the next message at once; each shows as a chip that can be removed. */
async function attachFiles(files) {
  if (files.length === 0) return;
  showError('');
  const id = state.threadId ?? (await newThread());
  await Promise.all(
    [...files].map(async (file) => {
      const item = { upload: undefined, node: h('li', { className: 'chip uploading' }, `Uploading ${file.name || 'pasted file'}…`) };
      state.pending.push(item);
      els.pending.append(item.node);
      renderPending();
      try {
        item.upload = await uploadFile(id, file);
        const remove = h('button', { type: 'button', className: 'ghost chip-remove', 'aria-label': `Remove ${item.upload.name}` }, '✕');
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
        showError(error.message);
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
  try {
    const id = state.threadId ?? (await newThread());
    await sendMessage(id, text, files);
    els.input.value = '';
    state.pending = [];
    els.pending.replaceChildren();
    renderPending();
    await refreshThreads();
  } catch (error) {
    showError(error.message);
  } finally {
    els.send.disabled = false;
    els.input.focus();
  }
}

els.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void submit();
});

// An approval button sends its command (`/approve session`, `/deny`…) as a message from the page,
// as a press does on the other platforms; the gateway answers and settles the request.
els.messages.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-answer]');
  if (!button || !state.threadId) return;
  const group = button.closest('.approval-actions');
  for (const other of group.querySelectorAll('button')) other.disabled = true;
  sendMessage(state.threadId, button.dataset.answer).catch((error) => {
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

els.newThread.addEventListener('click', () => {
  newThread().catch((error) => showError(error.message));
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
    renderSetup(els.setup, status);
    const wanted = new URLSearchParams(window.location.search).get('thread');
    const known = state.threads.find((thread) => thread.id === wanted);
    openThread(known ? known.id : state.threads[0]?.id, { push: Boolean(known) || state.threads.length > 0 });
  } catch (error) {
    showError(`The web chat could not load: ${error.message}`);
  }
  document.body.setAttribute('data-ready', 'true');
}

void main();
