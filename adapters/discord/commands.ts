import { SlashCommandBuilder, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { COMMANDS, type CommandName } from '../../src/gateway/index.js';

/** The option a gateway command takes, where it takes one: its name, what it asks, and its choices. */
interface CommandOption {
  name: string;
  description: string;
  choices?: readonly string[];
}

/** The words after a command (`/model gpt-5`, `/verbose all`, `/approve session`) as a Discord string option. */
const OPTIONS: Partial<Record<CommandName, CommandOption>> = {
  approve: { name: 'scope', description: 'session (until /new), always (as a rule), or forget <n>' },
  model: { name: 'name', description: 'the model to use in this thread, or default to go back' },
  pair: { name: 'action', description: 'approve <code>, list, or revoke <user id>' },
  verbose: { name: 'mode', description: 'off, new or all (leave it out for the next one)', choices: ['off', 'new', 'all'] },
};

/** Discord allows 1–100 characters of description. */
function describe(text: string): string {
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
}

function gatewayCommand(name: CommandName, description: string): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const builder = new SlashCommandBuilder().setName(name).setDescription(describe(description));
  const option = OPTIONS[name];
  if (option) {
    builder.addStringOption((o) => {
      o.setName(option.name).setDescription(describe(option.description)).setRequired(false);
      if (option.choices) o.addChoices(...option.choices.map((choice) => ({ name: choice, value: choice })));
      return o;
    });
  }
  return builder.toJSON();
}

/**
 * The slash commands registered at start: `/ask` carries the prompt, the others are the
 * gateway's chat commands (every one in `COMMANDS`, with its words as an optional option).
 */
export const DISCORD_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask the agent something')
    .addStringOption((option) => option.setName('prompt').setDescription('What to ask').setRequired(true))
    .toJSON(),
  ...COMMANDS.map((command) => gatewayCommand(command.name, command.description)),
];

/** Names of the commands above. */
export const DISCORD_COMMAND_NAMES = new Set(DISCORD_COMMANDS.map((command) => command.name));

/** The name of the option that carries a command's words, if it takes any. */
export function commandOptionName(name: string): string | undefined {
  return (OPTIONS as Partial<Record<string, CommandOption>>)[name]?.name;
}
