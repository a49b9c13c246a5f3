export type {
  InboundMessage,
  InboundAttachment,
  AttachmentRef,
  AttachmentDescription,
  PassedAttachment,
  OutboundFile,
  OutboundVoice,
  VoiceCapability,
  StreamingCapability,
  ApprovalCapability,
  FileCapability,
  PresenceCapability,
  PlatformAdapter,
  ReplyTarget,
  ThreadRef,
  MessageHandler,
  ChatType,
  TurnNotice,
  StreamedMessage,
  DeliveryVerdict,
  TurnReaction,
} from './types.js';
export { threadRef, readThread, KEY_ONLY_THREAD_REF, type ThreadRefOptions } from './thread-ref.js';
export { closeFences, openFence } from './stream/fences.js';
export { editedMessage } from './stream/streamed-message.js';
export { OutboxStore } from './outbox/store.js';
export { safeFileName, uniqueName, formatSize } from './file-names.js';
export { receiveAttachments, UPLOADS, VISION_MAX_BYTES, type Received, type ReceiveOptions } from './attachments.js';
export { sendFileFrom, mediaLines, type SendFileRequest } from './file-send.js';
export { Gateway, type GatewayOptions, type GatewayThreadRouter, type StartReport } from './gateway.js';
export { ONE_INSTANCE } from './one-instance.js';
export { AccessPolicy, envName } from './access.js';
export { approvalQueueFor, approvalPrompt, approvalOutcomeText, parseApprovalCommand, type ApprovalCommand } from './approvals.js';
export { parseCommand, helpText, COMMANDS, type CommandName } from './commands.js';
export type { BusyInputMode } from './lane.js';
export { splitMessage } from './split.js';
export { Semaphore } from '../shared/semaphore.js';
export { progressLine, type ToolProgressMode } from './progress.js';
export { GatewayError } from './errors.js';
export { liveModelClient } from './live-model-client.js';
