import { requireIpBound, requireMainAccount } from '../auth/access.ts';
import { errors } from '../envelope.ts';
import { MAX_SUB_ACCOUNTS } from '../state/accounts.ts';
import { ipListOf, labelOf, passphraseOf, permListOf, subAccountNameOf } from '../state/rules.ts';
import { BATCH_PERMISSIONS } from '../state/types.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { asObject, parseBody } from './params.ts';

const MAX_ITEMS = 5;

/** POST /api/v2/user/batch-create-subaccount-and-apikey: a JSON array of 1-5 items, all or nothing. */
export const batchCreateSubAccounts: PrivateEndpoint = {
  name: 'batch-create-subaccount-and-apikey',
  method: 'POST',
  path: '/api/v2/user/batch-create-subaccount-and-apikey',
  perSecond: 1,
  auth: 'private',
  access: [requireMainAccount, requireIpBound],
  handle(ctx) {
    const body = parseBody(ctx.rawBody);
    if (!Array.isArray(body)) throw errors.invalidParam('body');
    if (body.length === 0) throw errors.missingParam('body');
    if (body.length > MAX_ITEMS) throw errors.invalidParam('body');
    // Every item is checked before anything is created: one bad item rejects the request.
    const items = body.map((raw) => {
      const item = asObject(raw);
      const subAccountName = subAccountNameOf(item);
      const passphrase = passphraseOf(item);
      const label = labelOf(item);
      const permList = permListOf(item, BATCH_PERMISSIONS);
      if (permList === undefined) throw errors.missingParam('permList');
      return { subAccountName, passphrase, label, permList, ipList: ipListOf(item) };
    });
    const seen = new Set<string>();
    for (const item of items) {
      const name = item.subAccountName.toLowerCase();
      if (seen.has(name)) throw errors.nameDuplicated();
      seen.add(name);
    }
    const accounts = ctx.sim.accounts;
    if (items.some((item) => accounts.nameTaken(item.subAccountName.toLowerCase()))) throw errors.nameTaken();
    const main = ctx.caller.main;
    if (main.subs.length + items.length > MAX_SUB_ACCOUNTS) throw errors.tooManySubs();
    return items.map((item) => {
      const sub = accounts.createSub(main, item.subAccountName.toLowerCase(), '', ctx.now);
      sub.name = item.subAccountName;
      const key = accounts.addKey(sub.uid, main.uid, item, ctx.now);
      return {
        subAccountUid: sub.uid,
        subAccountName: item.subAccountName,
        label: key.label,
        subAccountApiKey: key.apiKey,
        secretKey: key.secretKey,
        permList: [...key.permList],
        ipList: [...key.ipList],
      };
    });
  },
};
