/* global document, navigator */
// Turns transcript entries into DOM. Text from the user, the model or a script is set as
// text (textContent); only the model's markdown becomes HTML, and only after DOMPurify.
// The page runs under Trusted Types, so an unsanitized innerHTML would throw, not run.
import { Marked } from '/vendor/marked.js';
import DOMPurify from '/vendor/purify.js';
import hljs from '/vendor/highlight.js';
import { icon } from './icons.js';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

// Raw HTML in the model's markdown is shown as text: an answer about HTML stays readable.
const markdown = new Marked({ gfm: true, breaks: true, renderer: { html: ({ text }) => escapeHtml(text) } });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY = {
  RETURN_TRUSTED_TYPE: true,
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
  FORBID_ATTR: ['style'],
};

/** Longest code block that gets colours: past it, highlighting would hold the page up. */
const HIGHLIGHT_MAX_CHARS = 20_000;

/**
 * Colours a code element's text with highlight.js (its `language-x` class, else a guess).
 * highlight.js returns HTML, so it goes through DOMPurify like everything else.
 */
export function highlight(code, language) {
  const text = code.textContent;
  if (!text || text.length > HIGHLIGHT_MAX_CHARS) return;
  const named = language ?? /(?:^|\s)language-([\w+-]+)/.exec(code.className)?.[1];
  const result = named && hljs.getLanguage(named) ? hljs.highlight(text, { language: named, ignoreIllegals: true }) : hljs.highlightAuto(text);
  code.innerHTML = DOMPurify.sanitize(result.value, PURIFY);
  code.classList.add('hljs');
}

/** A Copy button for a code block: copies its text as it is. */
function copyButton(code) {
  const label = h('span', {}, 'Copy');
  const button = h('button', { type: 'button', className: 'ghost copy', 'aria-label': 'Copy code' }, icon('copy'), label);
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(code.textContent).then(
      () => {
        label.textContent = 'Copied';
        button.replaceChild(icon('check'), button.firstChild);
      },
      () => (label.textContent = 'Copy failed'),
    );
  });
  return button;
}

/** Puts a Copy button on a `pre`, and colours its code unless the text is still streaming in. */
export function decorateCode(pre, { colour = true, language } = {}) {
  const code = pre.querySelector('code') ?? pre;
  if (colour) highlight(code, language);
  const wrap = h('div', { className: 'code-block' });
  pre.replaceWith(wrap);
  wrap.append(copyButton(code), pre);
}

/** Renders markdown into `target`, sanitized; code blocks get colours (once complete) and a Copy button. */
export function renderMarkdown(target, text, { streaming = false } = {}) {
  target.innerHTML = DOMPurify.sanitize(markdown.parse(text, { async: false }), PURIFY);
  for (const pre of target.querySelectorAll('pre')) decorateCode(pre, { colour: !streaming });
}

/** A small element builder: h('p', { className: 'x' }, 'text', child). Strings become text nodes. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'className' || key === 'textContent' || key === 'open' || key === 'hidden') el[key] = value;
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

const STATUS_LABEL = {
  running: 'running…',
  success: 'done',
  error: 'failed',
  timeout: 'timed out',
  interrupted: 'interrupted',
};

function seconds(ms) {
  return ms === undefined ? undefined : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function timeOf(entry) {
  const date = new Date(entry.at);
  return h('time', { dateTime: date.toISOString(), className: 'when', title: date.toLocaleString() }, date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }));
}

function renderTool(entry, previous) {
  // Keep what the reader opened or closed when the call is re-rendered with its outcome.
  const wasOpen = (name, fallback) => {
    const details = previous && previous.querySelector(`details.${name}`);
    return details ? details.open : fallback;
  };
  const label = entry.name === 'execute_code' ? 'Script' : 'Arguments';
  const input = entry.code ?? entry.args;
  const output = entry.output ?? '';
  return h(
    'article',
    { className: `entry tool status-${entry.status}`, 'data-id': entry.id, 'data-status': entry.status, 'aria-label': `Tool ${entry.name}: ${STATUS_LABEL[entry.status] ?? entry.status}` },
    h(
      'div',
      { className: 'tool-head' },
      h('span', { className: 'tool-icon', 'aria-hidden': 'true' }, icon(entry.status === 'running' ? 'hourglass' : 'tool')),
      h('span', { className: 'tool-name' }, entry.name),
      h('span', { className: 'badge' }, STATUS_LABEL[entry.status] ?? entry.status),
      entry.durationMs !== undefined && h('span', { className: 'muted' }, seconds(entry.durationMs)),
    ),
    input && h('details', { className: 'tool-input', open: wasOpen('tool-input', false) }, h('summary', {}, label), codeBlock(input, entry.code !== undefined ? 'python' : 'json')),
    (output || entry.status !== 'running') &&
      h(
        'details',
        { className: 'tool-output', open: wasOpen('tool-output', true) },
        h('summary', {}, 'Output'),
        h('pre', { className: 'output' }, output || (entry.status === 'running' ? '' : '(no output)')),
      ),
    // The executor often repeats its error at the end of the output; show it once.
    entry.error && !output.includes(entry.error) && h('p', { className: 'tool-error' }, entry.error),
  );
}

/** A script or arguments, coloured, with a Copy button. */
function codeBlock(text, language) {
  const pre = h('pre', {}, h('code', {}, text));
  const holder = h('div', {}, pre);
  decorateCode(pre, { language });
  return holder.firstChild;
}

/** How a button's tone (from the gateway's `APPROVAL_BUTTONS`) looks on the page. */
const TONE_CLASS = { approve: 'primary', deny: 'danger' };

function renderApproval(entry) {
  const body = h('div', { className: 'body markdown' });
  renderMarkdown(body, entry.text);
  // The buttons come with the entry (the gateway's one table); each carries the press it sends.
  const buttons = Array.isArray(entry.buttons) ? entry.buttons : [];
  const waiting = entry.state === 'waiting';
  return h(
    'article',
    { className: `entry approval state-${entry.state}`, 'data-id': entry.id, 'data-state': entry.state, 'aria-label': waiting ? 'Approval needed' : 'Approval request' },
    body,
    waiting &&
      buttons.length > 0 &&
      h(
        'div',
        { className: 'approval-actions', role: 'group', 'aria-label': 'Answer the approval request' },
        buttons.map((button) => h('button', { type: 'button', className: TONE_CLASS[button.tone] ?? '', 'data-press': button.data }, button.label)),
      ),
  );
}

/** `532 B`, `12 KB`, `3.4 MB`, as the gateway writes sizes. */
export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

function fileChips(files) {
  if (!files || files.length === 0) return undefined;
  return h('ul', { className: 'files' }, files.map((file) => h('li', { className: 'chip' }, `${file.name} — ${formatSize(file.size)}`)));
}

/**
 * A file the agent sent: a download link (the server sends it as an attachment), and for
 * PNG, JPEG, GIF and WebP the picture inline. Names are text; nothing of the file runs.
 */
function renderFile(entry) {
  const link = h('a', { href: entry.url, download: entry.file.name, className: 'download' }, `Download ${entry.file.name}`);
  return h(
    'article',
    { className: 'entry msg assistant file', 'data-id': entry.id, 'aria-label': `File ${entry.file.name}` },
    h('div', { className: 'who' }, h('span', {}, 'Hermes'), timeOf(entry)),
    entry.preview && h('a', { href: entry.url, download: entry.file.name, className: 'preview' }, h('img', { src: entry.url, alt: entry.caption || entry.file.name })),
    String(entry.file.mimeType ?? '').startsWith('audio/') && h('audio', { controls: '', preload: 'metadata', src: entry.url, 'aria-label': `Play ${entry.file.name}` }),
    entry.caption && h('p', { className: 'caption' }, entry.caption),
    h('p', { className: 'file-line' }, link, h('span', { className: 'muted' }, ` ${formatSize(entry.file.size)}`)),
  );
}

/** The element for one entry; `previous` is the element it replaces, if any. */
export function renderEntry(entry, previous) {
  switch (entry.kind) {
    case 'user':
      return h(
        'article',
        { className: 'entry msg user', 'data-id': entry.id },
        h('div', { className: 'who' }, h('span', {}, 'You'), timeOf(entry)),
        entry.text && h('div', { className: 'body plain' }, entry.text),
        fileChips(entry.files),
      );
    case 'file':
      return renderFile(entry);
    case 'assistant': {
      const body = h('div', { className: 'body markdown' });
      renderMarkdown(body, entry.text, { streaming: Boolean(entry.streaming) });
      return h(
        'article',
        { className: `entry msg assistant${entry.interim ? ' interim' : ''}${entry.streaming ? ' streaming' : ''}`, 'data-id': entry.id },
        h('div', { className: 'who' }, h('span', {}, 'Hermes'), timeOf(entry)),
        body,
      );
    }
    case 'tool':
      return renderTool(entry, previous);
    case 'approval':
      return renderApproval(entry);
    case 'notice':
      return h('p', { className: `entry notice tone-${entry.tone}`, 'data-id': entry.id, role: entry.tone === 'info' ? undefined : 'note' }, entry.text);
    default:
      return h('p', { className: 'entry notice', 'data-id': entry.id }, `(${String(entry.kind)})`);
  }
}
