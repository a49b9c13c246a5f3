export { probeAudio, type ProbedAudio } from './audio-probe.js';
export { listenerFor, notTranscribed, type Heard, type Listener } from './listen.js';
export { toOggOpus, voiceClip, type VoiceClip } from './ogg-voice.js';
export { speakableText } from './speakable-text.js';
export { transcriberFor, TRANSCRIPT_MAX_CHARS, type Recording, type Transcriber, type TranscriptOutcome } from './stt.js';
export { speakerFor, type Speaker } from './tts.js';
export { isVoiceMode, VOICE_MODES, VOICE_MODE_TEXT, type VoiceMode } from './voice-mode.js';
