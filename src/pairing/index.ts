export { PAIRING_ALPHABET, PAIRING_CODE_LENGTH, newPairingCode, normalizeCode } from './codes.js';
export { PairingStore, PAIRING_LIMITS, type PairingLimits, type PairingRequest, type PairedUser, type RequestOutcome, type ApproveOutcome, type PairingStoreOptions } from './store.js';
