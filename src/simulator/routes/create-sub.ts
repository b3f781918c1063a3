import { requireMainAccount, requireUnifiedManagement } from '../auth/access.ts';
import { errors } from '../envelope.ts';
import { MAX_SUB_ACCOUNTS } from '../state/accounts.ts';
import { usernameOf } from '../state/rules.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { asObject, optionalString, parseBody } from './params.ts';

const MAX_NOTE = 50;

/** POST /api/v3/user/create-sub: only unified virtual sub-accounts; accountMode classic is 40020. */
export const createSub: PrivateEndpoint = {
  name: 'create-sub',
  method: 'POST',
  path: '/api/v3/user/create-sub',
  perSecond: 10,
  auth: 'private',
  access: [requireMainAccount, requireUnifiedManagement],
  handle(ctx) {
    const body = asObject(parseBody(ctx.rawBody));
    const username = usernameOf(body);
    const accountMode = optionalString(body, 'accountMode');
    if (accountMode !== undefined && accountMode !== 'unified') throw errors.invalidParam('accountMode');
    const note = optionalString(body, 'note') ?? '';
    if (note.length > MAX_NOTE) throw errors.invalidParam('note');
    const accounts = ctx.sim.accounts;
    if (accounts.nameTaken(username)) throw errors.nameTaken();
    const main = ctx.caller.main;
    if (main.subs.length >= MAX_SUB_ACCOUNTS) throw errors.tooManySubs();
    const sub = accounts.createSub(main, username, note, ctx.now);
    return {
      username: sub.email,
      subUid: sub.uid,
      status: sub.status,
      note: sub.note,
      createdTime: String(sub.createdTime),
      updatedTime: String(sub.updatedTime),
    };
  },
};
