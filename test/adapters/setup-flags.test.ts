import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../adapters/index.js';
import { PLATFORM_SETUP_FLAGS } from '../../adapters/setup-flags.js';
import { registerSetupCommand } from '../../src/cli/commands/setup.js';

describe('setup flags from the platform modules', () => {
  it('lists every platform with tokens, in the registry order, with the flags its Platform declares', () => {
    const withSetup = PLATFORMS.flatMap((platform) => (platform.setup ? [platform] : []));
    expect(PLATFORM_SETUP_FLAGS.map((flags) => flags.platform)).toEqual(withSetup.map((platform) => platform.name));
    for (const [index, platform] of withSetup.entries()) expect(platform.setup?.flags).toBe(PLATFORM_SETUP_FLAGS[index]);
  });

  it('gives `hermes setup` the same flags as before', () => {
    const program = new Command();
    registerSetupCommand(program);
    const setup = program.commands.find((command) => command.name() === 'setup');
    const flags = setup?.options.map((option) => option.long) ?? [];
    expect(flags).toEqual(expect.arrayContaining([
      '--telegram-token', '--telegram-user', '--slack-bot-token', '--slack-app-token', '--slack-signing-secret', '--slack-user', '--discord-token', '--discord-user',
    ]));
  });
});
