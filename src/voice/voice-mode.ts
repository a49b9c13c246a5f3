/** How a thread's answers arrive (`/voice`): written only, written and spoken, or spoken only. */
export type VoiceMode = 'off' | 'on' | 'only';

export const VOICE_MODES: readonly VoiceMode[] = ['off', 'on', 'only'];

export function isVoiceMode(value: unknown): value is VoiceMode {
  return typeof value === 'string' && (VOICE_MODES as readonly string[]).includes(value);
}

/** What each mode does, for the `/voice` reply. */
export const VOICE_MODE_TEXT: Record<VoiceMode, string> = {
  off: 'answers are written only',
  on: 'each answer is written and also sent as a voice note',
  only: 'each answer arrives as a voice note only (the written text if speech fails)',
};
