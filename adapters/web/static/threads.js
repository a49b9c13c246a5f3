/* global window */
// The thread list: search, and the current thread's rename and delete.
import { deleteThread, listThreads, renameThread } from './api.js';
import { h } from './render.js';

/**
 * Keeps `state.threads` and the list in the sidebar; `query` filters by words of titles and
 * messages (asked of the server, which has every thread).
 */
export function threadList({ list, empty, state, onChange }) {
  let query = '';
  let asked = 0;

  function render() {
    list.replaceChildren(
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
    empty.textContent = query ? `No thread contains “${query}”.` : 'No threads yet.';
    empty.hidden = state.threads.length > 0;
    onChange();
  }

  async function refresh() {
    const mine = ++asked;
    const threads = await listThreads(query);
    // An older answer arriving after a newer one must not win.
    if (mine !== asked) return;
    state.threads = threads;
    render();
  }

  return {
    render,
    refresh,
    async search(text) {
      query = text.trim();
      await refresh();
    },
    /** Asks for a new title (a prompt, as simple as it gets) and saves it. */
    async rename(id) {
      const current = state.threads.find((thread) => thread.id === id) ?? (state.current?.id === id ? state.current : undefined);
      const title = window.prompt('Rename the thread', current ? current.title : '');
      if (title === null || !title.trim()) return;
      await renameThread(id, title.trim());
      await refresh();
    },
    /** Deletes the thread once confirmed; resolves to true when it was deleted. */
    async remove(id) {
      const current = state.threads.find((thread) => thread.id === id) ?? (state.current?.id === id ? state.current : undefined);
      if (!window.confirm(`Delete the thread “${current ? current.title : id}”? Its messages and files go.`)) return false;
      await deleteThread(id);
      await refresh();
      return true;
    },
  };
}
