import type { Command } from 'commander';
import { loadForCli } from '../common.js';

export interface PairingCommandOptions {
  /** The clock (tests move it). */
  now?: () => number;
  /** Where lines go (stdout in the CLI). */
  print?: (line: string) => void;
}

/**
 * `hermes pairing approve <platform> <code>`, `list [platform]`, `revoke <platform> <who>`: on
 * the state database the gateway uses (state.db or PostgreSQL), so every running instance sees
 * an approval or a revoke at the person's next message.
 */
export function registerPairingCommand(program: Command, options: PairingCommandOptions = {}): void {
  const print = options.print ?? ((line: string) => console.log(line));
  const pairing = program.command('pairing').description('approve, list and revoke pairing codes of strangers (platforms.<name>.dm_policy: pairing)');
  pairing
    .command('approve')
    .description('let in the person who got <code> in a direct message on <platform>')
    .argument('<platform>')
    .argument('<code>')
    .action(async (platform: string, code: string, _options: unknown, command: Command) => {
      await withStore(command, options, (store) => {
        const outcome = store.approve(platform, code, 'cli');
        if (outcome.kind === 'approved') return print(`approved: ${outcome.userName || 'user'} (${platform} id ${outcome.userId}) may talk to the bot now`);
        process.exitCode = 1;
        if (outcome.kind === 'locked') return print(`refused: too many wrong codes on ${platform}; approvals are refused until ${new Date(outcome.retryAt).toISOString()}`);
        print(`refused: no such code is waiting on ${platform} (codes live one hour; hermes pairing list shows them)`);
      });
    });
  pairing
    .command('list')
    .description('the codes waiting and the people approved (of one platform, or all)')
    .argument('[platform]')
    .action(async (platform: string | undefined, _options: unknown, command: Command) => {
      const { pairingList } = await import('../../gateway/people-commands.js');
      await withStore(command, options, (store) => print(pairingList(store, platform)));
    });
  pairing
    .command('revoke')
    .description('take back the access of <who> (a user id, or a waiting code) on <platform>; it applies at their next message')
    .argument('<platform>')
    .argument('<who>')
    .action(async (platform: string, who: string, _options: unknown, command: Command) => {
      await withStore(command, options, (store) => {
        if (store.revoke(platform, who)) return print(`revoked: ${who} on ${platform}`);
        process.exitCode = 1;
        print(`nothing to revoke: ${who} is neither paired nor waiting on ${platform}`);
      });
    });
}

async function withStore(command: Command, options: PairingCommandOptions, work: (store: import('../../pairing/index.js').PairingStore) => void): Promise<void> {
  const { config, paths, env } = loadForCli(command);
  const [{ PairingStore }, { stateLocationFrom }] = await Promise.all([import('../../pairing/index.js'), import('../../sessions/index.js')]);
  const store = PairingStore.open(stateLocationFrom(config, paths, env), options.now ? { now: options.now } : {});
  try {
    work(store);
  } finally {
    store.close();
  }
}
