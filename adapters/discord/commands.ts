import { SlashCommandBuilder, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';

/** The slash commands registered at start; `/ask` carries the prompt, the others are gateway chat commands. */
export const DISCORD_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask the agent something')
    .addStringOption((option) => option.setName('prompt').setDescription('What to ask').setRequired(true))
    .toJSON(),
  new SlashCommandBuilder().setName('new').setDescription('Start a new session in this channel or thread').toJSON(),
  new SlashCommandBuilder().setName('stop').setDescription('Stop the running turn').toJSON(),
  new SlashCommandBuilder().setName('status').setDescription('Model, backend and session state').toJSON(),
  new SlashCommandBuilder().setName('help').setDescription('What the bot can do').toJSON(),
];

/** Names of the commands above. */
export const DISCORD_COMMAND_NAMES = new Set(DISCORD_COMMANDS.map((command) => command.name));
