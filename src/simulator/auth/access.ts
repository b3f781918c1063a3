import { errors } from '../envelope.ts';
import type { ApiKeyRecord, MainAccount, Permission } from '../state/types.ts';

/**
 * The access rules of the spec's Authentication table. Each throws the
 * documented error; the route lists the rules it needs in order.
 */
export interface Caller {
  key: ApiKeyRecord;
  /** The main account at the top of the key's owner. */
  main: MainAccount;
  /** Whether the key belongs to the main account itself rather than a sub-account. */
  isMain: boolean;
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.key.permList.includes(permission)) throw errors.permission(permission);
}

export function requireMainAccount(caller: Caller): void {
  if (!caller.isMain) throw errors.permission('main account');
}

/** Management endpoints: a main-account key without an IP whitelist is refused. */
export function requireIpBound(caller: Caller): void {
  if (caller.key.ipList.length === 0) throw errors.ipNotBound();
}

export function requireBrokerParent(caller: Caller): void {
  if (!caller.isMain || !caller.main.broker) throw errors.notBroker();
}

export function requireUnifiedTrading(caller: Caller): void {
  if (!caller.main.uta) throw errors.permission('UTA trade');
}

export function requireUnifiedManagement(caller: Caller): void {
  if (!caller.main.unifiedManagement) throw errors.permission('unified account management read-write');
}
