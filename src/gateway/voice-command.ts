import type { AgentRunner } from '../agent/types.js';
import type { HermesConfig } from '../config/index.js';
import { isVoiceMode, speakerFor, VOICE_MODE_TEXT, VOICE_MODES } from '../voice/index.js';
import type { PlatformAdapter } from './types.js';

export interface VoiceCommandContext {
  agent: AgentRunner;
  adapter: PlatformAdapter;
  threadKey: string;
  args: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
}

/** The `/voice on | off | only` reply; the mode is kept with the thread's settings. */
export function voiceCommandReply(ctx: VoiceCommandContext): string {
  const { agent, threadKey: key } = ctx;
  if (!agent.threadSettings || !agent.updateThreadSettings) return 'This agent keeps no per-thread settings.';
  const current = agent.threadSettings(key).voice ?? 'off';
  const asked = ctx.args.trim().toLowerCase();
  if (!asked) return `Voice in this thread: ${current} (${VOICE_MODE_TEXT[current]}). /voice on, /voice only or /voice off.`;
  if (!isVoiceMode(asked)) return `/voice takes ${VOICE_MODES.join(', ')} (now: ${current}).`;
  if (asked !== 'off') {
    if (!ctx.adapter.voice) return 'Voice notes cannot be sent on this platform, so voice stays off here.';
    const speaker = speakerFor(ctx.config, ctx.env);
    const missing = speaker.unavailable();
    if (missing) return `Voice stays ${current}: ${missing}.`;
  }
  agent.updateThreadSettings(key, { voice: asked === 'off' ? undefined : asked });
  return `Voice in this thread: ${asked} (${VOICE_MODE_TEXT[asked]}).`;
}
