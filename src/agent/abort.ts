/** The reason text of an aborted signal, as shown to the model (`user sent a new message`). */
export function abortText(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (typeof reason === 'string' && reason) return reason;
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message) return reason.message;
  return 'interrupted';
}
