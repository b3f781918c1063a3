import { PermanentError } from './ledgerline-error.ts';

/** A stored secret cannot be opened: wrong master key, tampered or corrupt ciphertext. */
export class SecretBoxError extends PermanentError {
  constructor(rule: string, cause?: unknown) {
    super(`secret cannot be decrypted: ${rule}`, { code: 'SECRET_BOX', rule, cause });
  }
}
