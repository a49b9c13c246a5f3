/**
 * Names of this host that mean nothing on another one: a backend elsewhere (SSH, Docker, a
 * plugin's) keeps its own. The rest of the scrubbed set (LANG, TZ, passthrough names) is sent.
 */
const HOST_SPECIFIC = /^(PATH|HOME|USER|LOGNAME|SHELL|TMPDIR|TMP|TEMP|PYTHONPATH|VIRTUAL_ENV|CONDA.*|XDG_.*)$/;

/** The scrubbed variables worth sending to another host, with `extra` laid over them as they are. */
export function remoteEnv(scrubbed: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(scrubbed)) if (!HOST_SPECIFIC.test(name)) out[name] = value;
  return { ...out, ...extra };
}
