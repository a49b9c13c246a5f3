import { APPROVAL_BUTTONS, approvalButtonData, type ApprovalButton } from '../../src/gateway/approval-buttons.js';
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type APIActionRowComponent, type APIComponentInMessageActionRow } from 'discord.js';

const STYLE: Record<ApprovalButton['tone'], ButtonStyle> = {
  approve: ButtonStyle.Success,
  primary: ButtonStyle.Primary,
  neutral: ButtonStyle.Secondary,
  deny: ButtonStyle.Danger,
};

/** The action row under one approval request: the shared buttons, each carrying the request and its choice. */
export function approvalRow(requestId: string): APIActionRowComponent<APIComponentInMessageActionRow> {
  return new ActionRowBuilder<ButtonBuilder>()
    .addComponents(
      APPROVAL_BUTTONS.map((button) =>
        new ButtonBuilder().setCustomId(approvalButtonData(requestId, button.choice)).setLabel(button.label).setStyle(STYLE[button.tone]),
      ),
    )
    .toJSON();
}

/** `text` cut to fit one Discord message. */
export function fitMessage(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
