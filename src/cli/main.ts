#!/usr/bin/env node
import { Command } from 'commander';
import { registerConfigCommand } from './commands/config.js';
import { registerLogsCommand } from './commands/logs.js';
import { registerExecCommand } from './commands/exec.js';
import { registerSetupCommand } from './commands/setup.js';
import { registerStatusCommand } from './commands/status.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerPluginsCommand } from './commands/plugins.js';
import { registerGatewayCommand } from './commands/gateway.js';
import { registerChatCommand } from './commands/chat.js';

/*
 * Each command file exports `registerXCommand(program)`. Keep their top-level imports light
 * and load heavy modules inside the action, so `hermes exec` starts fast.
 */
const program = new Command('hermes')
  .description('hermes-gateway: one AI agent that writes and runs code, from Slack, Discord, Telegram and a local web chat')
  .option('--home <dir>', 'HERMES_HOME (default: $HERMES_HOME or ~/.hermes)')
  .showHelpAfterError();

registerConfigCommand(program);
registerLogsCommand(program);
registerExecCommand(program);
registerSetupCommand(program);
registerStatusCommand(program);
registerDoctorCommand(program);
registerPluginsCommand(program);
registerGatewayCommand(program);
registerChatCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`hermes: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
