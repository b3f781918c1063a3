import { type Caller, requireIpBound, requireMainAccount } from '../auth/access.ts';
import { errors } from '../envelope.ts';
import { MAX_KEYS_PER_SUB } from '../state/accounts.ts';
import { ipListOf, labelOf, passphraseOf, permListOf } from '../state/rules.ts';
import type { ApiKeyRecord, SubAccount } from '../state/types.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { asObject, parseBody, requiredString } from './params.ts';

const MANAGEMENT_ACCESS = [requireMainAccount, requireIpBound];

/** POST /api/v2/user/create-virtual-subaccount-apikey */
export const createSubAccountApiKey: PrivateEndpoint = {
  name: 'create-virtual-subaccount-apikey',
  method: 'POST',
  path: '/api/v2/user/create-virtual-subaccount-apikey',
  perSecond: 5,
  auth: 'private',
  access: MANAGEMENT_ACCESS,
  handle(ctx) {
    const body = asObject(parseBody(ctx.rawBody));
    const subAccountUid = requiredString(body, 'subAccountUid');
    const passphrase = passphraseOf(body);
    const label = labelOf(body);
    const ipList = ipListOf(body);
    const permList = permListOf(body);
    if (permList === undefined) throw errors.missingParam('permList');
    const sub = ownSub(ctx.sim.accounts.sub(subAccountUid), ctx.caller);
    if (sub.keys.length >= MAX_KEYS_PER_SUB) throw errors.tooManyKeys();
    const key = ctx.sim.accounts.addKey(sub.uid, sub.mainUid, { permList, ipList, label, passphrase }, ctx.now);
    sub.updatedTime = ctx.now;
    return keyView(key);
  },
};

/**
 * POST /api/v2/user/modify-virtual-subaccount-apikey. The passphrase must be
 * the key's own; ipList absent empties the whitelist; permList absent keeps
 * the permissions, empty removes them.
 */
export const modifySubAccountApiKey: PrivateEndpoint = {
  name: 'modify-virtual-subaccount-apikey',
  method: 'POST',
  path: '/api/v2/user/modify-virtual-subaccount-apikey',
  perSecond: 5,
  auth: 'private',
  access: MANAGEMENT_ACCESS,
  handle(ctx) {
    const body = asObject(parseBody(ctx.rawBody));
    const subAccountUid = requiredString(body, 'subAccountUid');
    const apiKey = requiredString(body, 'subAccountApiKey');
    const passphrase = passphraseOf(body);
    const label = labelOf(body);
    const ipList = ipListOf(body);
    const permList = permListOf(body);
    const sub = ownSub(ctx.sim.accounts.sub(subAccountUid), ctx.caller);
    const key = sub.keys.find((candidate) => candidate.apiKey === apiKey);
    if (!key) throw errors.unknownSubKey();
    if (key.passphrase !== passphrase) throw errors.badPassphrase();
    key.label = label;
    key.ipList = ipList;
    if (permList !== undefined) key.permList = permList;
    sub.updatedTime = ctx.now;
    return keyView(key);
  },
};

function ownSub(sub: SubAccount | undefined, caller: Caller): SubAccount {
  if (!sub || sub.mainUid !== caller.main.uid) throw errors.notYourSub();
  return sub;
}

function keyView(key: ApiKeyRecord) {
  return {
    subAccountUid: key.uid,
    label: key.label,
    subAccountApiKey: key.apiKey,
    secretKey: key.secretKey,
    permList: [...key.permList],
    ipList: [...key.ipList],
  };
}
