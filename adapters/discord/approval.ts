import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type APIActionRowComponent, type APIComponentInMessageActionRow } from 'discord.js';

/** `custom_id`s of the approval buttons, and the command each press stands for. */
export const DISCORD_APPROVAL_BUTTONS: ReadonlyMap<string, string> = new Map([
  ['hermes:approve', '/approve'],
  ['hermes:approve:session', '/approve session'],
  ['hermes:approve:always', '/approve always'],
  ['hermes:deny', '/deny'],
]);

/** The action row under an approval request: Approve once (green), This session, Always, Deny (red). */
export function approvalRow(): APIActionRowComponent<APIComponentInMessageActionRow> {
  return new ActionRowBuilder<ButtonBuilder>()
    .addComponents(
      new ButtonBuilder().setCustomId('hermes:approve').setLabel('Approve once').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setCustomId('hermes:approve:session').setLabel('This session').setStyle(ButtonStyle.Primary),
      new ButtonBuilder().setCustomId('hermes:approve:always').setLabel('Always').setStyle(ButtonStyle.Secondary),
      new ButtonBuilder().setCustomId('hermes:deny').setLabel('Deny').setStyle(ButtonStyle.Danger),
    )
    .toJSON();
}

/** `text` cut to fit one Discord message. */
export function fitMessage(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
