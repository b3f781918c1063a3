import { Rng } from '../prng.ts';
import type { ApiKeyRecord, Capabilities, MainAccount, Permission, SubAccount } from './types.ts';

export const MAX_SUB_ACCOUNTS = 20;
export const MAX_KEYS_PER_SUB = 10;

export interface NewKey {
  permList: Permission[];
  ipList: string[];
  label: string;
  passphrase?: string;
}

/**
 * Every account and API key the simulated exchange knows. Ids and secrets
 * come from one seeded stream, so the same seed and the same calls give the
 * same credentials.
 */
export class AccountRegistry {
  readonly #rng: Rng;
  readonly #mains = new Map<string, MainAccount>();
  readonly #subs = new Map<string, SubAccount>();
  readonly #keys = new Map<string, ApiKeyRecord>();
  readonly #names = new Set<string>();
  readonly #uids = new Set<string>();

  constructor(seed: number) {
    this.#rng = new Rng(seed, 'accounts');
  }

  createMain(capabilities: Capabilities): MainAccount {
    const account: MainAccount = { uid: this.#newUid(), ...capabilities, keys: [], subs: [] };
    this.#mains.set(account.uid, account);
    return account;
  }

  addKey(uid: string, mainUid: string, spec: NewKey, now: number): ApiKeyRecord {
    const key: ApiKeyRecord = {
      apiKey: `bg_${this.#rng.hex(32)}`,
      secretKey: this.#rng.hex(64),
      passphrase: spec.passphrase ?? `sim${this.#rng.digits(9)}`,
      uid,
      mainUid,
      permList: [...spec.permList],
      ipList: [...spec.ipList],
      label: spec.label,
      createdTime: now,
    };
    this.#keys.set(key.apiKey, key);
    const owner = this.#mains.get(uid) ?? this.#subs.get(uid);
    if (!owner) throw new Error(`unknown account ${uid}`);
    owner.keys.push(key);
    return key;
  }

  createSub(main: MainAccount, name: string, note: string, now: number): SubAccount {
    const uid = this.#newUid();
    const sub: SubAccount = {
      uid,
      mainUid: main.uid,
      name,
      email: `${name}${uid.slice(-4)}@virtual-bitget.com`,
      note,
      status: 'normal',
      createdTime: now,
      updatedTime: now,
      keys: [],
    };
    main.subs.push(sub);
    this.#subs.set(uid, sub);
    this.#names.add(name);
    return sub;
  }

  nameTaken(name: string): boolean {
    return this.#names.has(name);
  }

  /** A name for a generated sub-account that nobody has used yet. */
  freshName(length = 8): string {
    for (;;) {
      const name = this.#rng.letters(length);
      if (!this.#names.has(name)) return name;
    }
  }

  key(apiKey: string): ApiKeyRecord | undefined {
    return this.#keys.get(apiKey);
  }

  main(uid: string): MainAccount | undefined {
    return this.#mains.get(uid);
  }

  sub(uid: string): SubAccount | undefined {
    return this.#subs.get(uid);
  }

  /** A uid nobody holds, for generated broker clients that are not virtual sub-accounts. */
  reserveUid(): string {
    return this.#newUid();
  }

  #newUid(): string {
    for (;;) {
      const uid = this.#rng.digits(10);
      if (!this.#uids.has(uid)) {
        this.#uids.add(uid);
        return uid;
      }
    }
  }
}
