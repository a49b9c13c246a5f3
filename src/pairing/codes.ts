import { randomInt } from 'node:crypto';

/** Letters and digits nobody mistakes for another: no 0/O, 1/I/L, nor U (read as V). */
export const PAIRING_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const PAIRING_CODE_LENGTH = 8;

/** A fresh code: 8 characters from the alphabet, from the system's cryptographic source, no separators. */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

/** A code as someone typed it: case and spaces do not matter; anything else is kept (and so does not match). */
export function normalizeCode(typed: string): string {
  return typed.replace(/\s+/g, '').toUpperCase();
}
