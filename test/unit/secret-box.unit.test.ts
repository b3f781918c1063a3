import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { maskSecret, SecretBox } from '../../src/crypto/secret-box.ts';
import { SecretBoxError } from '../../src/errors/index.ts';

const key = randomBytes(32);

describe('SecretBox', () => {
  it('round-trips a secret, and never stores it in the clear', () => {
    const box = new SecretBox(key);
    const secret = 'sk_live_ünïcode_0123456789abcdef';
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.open(sealed)).toBe(secret);
  });

  it('seals the same secret differently each time (random IV)', () => {
    const box = new SecretBox(key);
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('fails loudly on a tampered ciphertext', () => {
    const box = new SecretBox(key);
    const parts = box.seal('passphrase123').split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 0x01;
    parts[3] = body.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow(SecretBoxError);
  });

  it('fails loudly on a tampered tag', () => {
    const box = new SecretBox(key);
    const parts = box.seal('passphrase123').split('.');
    const tag = Buffer.from(parts[2]!, 'base64url');
    tag[5] = tag[5]! ^ 0x80;
    parts[2] = tag.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow(/authentication failed/);
  });

  it('fails loudly under the wrong master key', () => {
    const sealed = new SecretBox(key).seal('secret');
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow(SecretBoxError);
  });

  it('binds the context: a box moved to another row does not open', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('secret', 'account:a:secret');
    expect(box.open(sealed, 'account:a:secret')).toBe('secret');
    expect(() => box.open(sealed, 'account:b:secret')).toThrow(SecretBoxError);
  });

  it('rejects malformed input and short keys', () => {
    const box = new SecretBox(key);
    expect(() => box.open('not-a-box')).toThrow(/not a v1 sealed secret/);
    expect(() => box.open('v1.AA.AA.AA')).toThrow(/malformed/);
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });

  it('masks secrets without revealing short ones', () => {
    expect(maskSecret('abcdefghijklmnop')).toBe('abcd…mnop');
    expect(maskSecret('short')).toBe('****');
  });
});
