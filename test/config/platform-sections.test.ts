import { describe, expect, it } from 'vitest';
import { listedAdmins, validateConfig } from '../../src/config/index.js';
import { PLATFORM_SCHEMAS } from '../../adapters/config.js';

// The platforms' own sections come from adapters/<name>/config.ts (given in test/platform-schemas-setup.ts).
describe('platform sections: each platform schema in its folder, composed by the loader', () => {
  it('a platform key of the wrong type names its section and key', () => {
    expect(() => validateConfig({ platforms: { slack: { port: 70000 } } }, 'c.yaml')).toThrow(/c\.yaml: platforms\.slack\.port: expected/);
    expect(() => validateConfig({ platforms: { telegram: { throttle: 'yes' } } }, 'c.yaml')).toThrow(/platforms\.telegram\.throttle: expected true or false/);
  });

  it('an unknown key inside a section, or an unknown platform, is a warning naming it', () => {
    const { warnings } = validateConfig({ platforms: { discord: { mode: 'http' }, matrix: { enabled: true } } }, 'c.yaml');
    expect(warnings.join('\n')).toContain('unknown key "platforms.discord.mode"');
    expect(warnings.join('\n')).toContain('unknown key "platforms.matrix"');
  });

  it('each section gets its own defaults, and the web chat has no allow-list', () => {
    const { config } = validateConfig({}, 'c.yaml');
    expect(Object.keys(config.platforms)).toEqual(Object.keys(PLATFORM_SCHEMAS));
    expect(config.platforms.telegram?.webhook_host).toBe('127.0.0.1');
    expect(config.platforms.slack?.mode).toBe('socket');
    expect(config.platforms.web && 'allowed_users' in config.platforms.web).toBe(false);
  });

  it('the older approvals.admins.<platform> is still read, for platforms with admins only', () => {
    const { config, warnings } = validateConfig({ approvals: { admins: { telegram: [7], web: ['x'] } }, platforms: { telegram: { admins: ['8'] } } }, 'c.yaml');
    expect(listedAdmins(config).telegram).toEqual(['7', '8']);
    expect(warnings.join('\n')).toContain('unknown key "approvals.admins.web"');
  });
});
