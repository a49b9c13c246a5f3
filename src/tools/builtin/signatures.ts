/** The tools a script may call: the seven of the table, then send_file. */
export const SCRIPT_TOOL_NAMES = [
  'read_file',
  'write_file',
  'search_files',
  'patch',
  'terminal',
  'web_search',
  'web_extract',
  'send_file',
] as const;

export type ScriptToolName = (typeof SCRIPT_TOOL_NAMES)[number];

/** A tool's Python signature in the generated `hermes_tools.py`: `def name(<params>):` plus a docstring. */
export interface ScriptToolSignature {
  /** The parameter list, defaults in Python syntax: `path, offset=1, limit=2000`. */
  params: string;
  /** One-paragraph docstring: what it does and what the dict it returns holds. */
  doc: string;
}

/**
 * The one source of truth for the stub's functions. The argument names and defaults match
 * the tools' zod schemas (a test checks them). Keyed by string so callers can index with any
 * allowed name; every SCRIPT_TOOL_NAMES entry is present.
 */
export const SCRIPT_TOOL_SIGNATURES: Readonly<Record<string, ScriptToolSignature>> = {
  read_file: {
    params: 'path, offset=1, limit=2000',
    doc: 'Read lines offset..offset+limit-1 (1-based) of a text file. Returns {"content", "total_lines", "truncated"}.',
  },
  write_file: {
    params: 'path, content',
    doc: 'Replace a file\'s content, creating parent folders. Returns {"path", "bytes_written"}.',
  },
  search_files: {
    params: 'pattern, target="content", path=".", file_glob=None, limit=50, offset=0, output_mode="content", context=0',
    doc:
      'Regex search in file contents (target="content") or file names (target="files"). Returns {"matches": [{"path", "line", "content"}]} ' +
      '(or "files", or "counts" for output_mode="count"), "total_count" and "truncated".',
  },
  patch: {
    params: 'path=None, old_string=None, new_string=None, replace_all=False, mode="replace", patch=None',
    doc:
      'mode="replace": replace old_string (unique unless replace_all) with new_string in path. Returns {"success", "replacements", "diff"}. ' +
      'mode="patch": apply a V4A patch (*** Begin Patch / *** Update File: p / @@ / -old / +new / *** End Patch) to several files. Returns {"success", "files", "diff"}.',
  },
  terminal: {
    params: 'command, timeout=None, workdir=None',
    doc: 'Run a shell command in the foreground. Returns {"output", "exit_code"}.',
  },
  web_search: {
    params: 'query, limit=5',
    doc: 'Search the web. Returns {"success": True, "data": {"web": [{"title", "url", "description"}]}}.',
  },
  web_extract: {
    params: 'urls, char_limit=None',
    doc: 'Fetch pages (a list of URLs) as markdown. Returns {"results": [{"url", "title", "content"}]}; a failed URL has "error".',
  },
  memory: {
    params: 'action=None, target=None, content=None, old_text=None, operations=None',
    doc:
      'The notes about the person you talk to: action "add" (content), "replace" (old_text, content), "remove" (old_text) or "read"; ' +
      'target "memory" (your notes) or "user" (their profile); operations=[{action, content, old_text}, ...] applies several at once. ' +
      'Returns {"success", "usage", "entry_count"} or {"error"}; read returns {"notes"}.',
  },
  session_search: {
    params: 'query=None, limit=3, role_filter=None',
    doc: 'Search this person\'s past sessions (no query: the recent ones). Returns {"results": [{"session_id", "thread", "when", "role", "snippet"}], "count"}.',
  },
  send_file: {
    params: 'path, caption=None',
    doc: 'Send a file (a chart, a report) to the user in this chat as an attachment; images show as pictures. Returns {"name", "bytes", "mime_type"}.',
  },
};
