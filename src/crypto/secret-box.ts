import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { SecretBoxError } from '../errors/index.ts';

/**
 * Encrypts secrets at rest (exchange API secrets, passphrases, created
 * sub-account keys) with AES-256-GCM under the master key.
 *
 * Sealed form: `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`. The version
 * prefix lets a later key rotation tell old boxes from new. The optional
 * `context` is bound as additional authenticated data, so a ciphertext copied
 * from one row to another (say, from account A's secret to account B's) fails
 * to open instead of silently decrypting.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new SecretBoxError('the master key must be 32 bytes');
    this.#key = Buffer.from(masterKey);
  }

  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) {
      throw new SecretBoxError(`not a ${VERSION} sealed secret`);
    }
    const iv = Buffer.from(parts[1]!, 'base64url');
    const tag = Buffer.from(parts[2]!, 'base64url');
    const body = Buffer.from(parts[3]!, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretBoxError('malformed sealed secret');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new SecretBoxError('authentication failed (wrong master key or tampered ciphertext)', error);
    }
  }
}

/** Shows that a secret exists without revealing it: `abcd…wxyz` or `****`. */
export function maskSecret(value: string): string {
  if (value.length <= 8) return '****';
  return `${value.slice(0, 4)}…${value.slice(-4)}`;
}
