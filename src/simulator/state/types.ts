export const PERMISSIONS = ['spot_trade', 'margin_trade', 'contract_trade', 'transfer', 'read'] as const;
export type Permission = (typeof PERMISSIONS)[number];
/** Batch creation may not grant `transfer`. */
export const BATCH_PERMISSIONS: readonly Permission[] = ['spot_trade', 'margin_trade', 'contract_trade', 'read'];

export interface ApiKeyRecord {
  apiKey: string;
  secretKey: string;
  passphrase: string;
  /** The account the key belongs to (a main account or a sub-account). */
  uid: string;
  /** The main account at the top: rate limits are counted against it. */
  mainUid: string;
  permList: Permission[];
  ipList: string[];
  label: string;
  createdTime: number;
}

export interface Capabilities {
  /** Parent account of the broker user class (all-sub-deposit-withdrawal). */
  broker: boolean;
  /** Unified trading account: UTA trade read-write (cancel-symbol-order). */
  uta: boolean;
  /** Unified-account management read-write (create-sub). */
  unifiedManagement: boolean;
}

export interface SubAccount {
  uid: string;
  mainUid: string;
  /** 8-letter nickname (batch creation) or the create-sub username. */
  name: string;
  email: string;
  note: string;
  status: 'normal';
  createdTime: number;
  updatedTime: number;
  keys: ApiKeyRecord[];
}

export interface MainAccount extends Capabilities {
  uid: string;
  keys: ApiKeyRecord[];
  subs: SubAccount[];
}

/** Key data without its secrets, for /__sim/state. */
export interface PublicKeyView {
  apiKey: string;
  uid: string;
  permList: Permission[];
  ipList: string[];
  label: string;
  createdTime: number;
}

export function publicKeyView(key: ApiKeyRecord): PublicKeyView {
  return {
    apiKey: key.apiKey,
    uid: key.uid,
    permList: [...key.permList],
    ipList: [...key.ipList],
    label: key.label,
    createdTime: key.createdTime,
  };
}
