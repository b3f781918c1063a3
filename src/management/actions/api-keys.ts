import type {
  CreateVirtualSubaccountApiKeyParams,
  ModifyVirtualSubaccountApiKeyParams,
  SubAccountApiKey,
} from '../../exchange/index.ts';
import type { ActionInput } from '../action-input.ts';
import { LimitReachedError } from '../errors.ts';
import { checkKeyRoom } from '../limits.ts';
import { runStep, type StepResult } from '../run-step.ts';
import { type ActionContext, type ActionOutcome, foldSteps } from './action-context.ts';

type CreateKey = Extract<ActionInput, { command: 'apikey_create' }>;
type ModifyKey = Extract<ActionInput, { command: 'apikey_modify' }>;

/** create-virtual-subaccount-apikey: the secret key in the answer is sealed into the mirror at once. */
export async function createApiKey(ctx: ActionContext<CreateKey>): Promise<ActionOutcome> {
  const { action, mirror, client } = ctx;
  const request = ctx.plan[0]!;
  const subUid = ctx.input.params.subAccountUid;
  let step: StepResult | undefined;
  if (ctx.recorder.of(request.step).length === 0) {
    try {
      await checkKeyRoom(ctx.prisma, action.accountId, subUid);
    } catch (error) {
      if (!(error instanceof LimitReachedError)) throw error;
      step = { state: 'failed', error: error.message };
    }
  }
  let apiKey: string | undefined;
  step ??= await runStep<SubAccountApiKey>(ctx.recorder, {
    request,
    call: () => client.createVirtualSubaccountApiKey(request.body as CreateVirtualSubaccountApiKeyParams),
    onSuccess: async (tx, key) => {
      apiKey = key.subAccountApiKey;
      await mirror.recordKey(tx, action.accountId, action.id, key, true);
    },
    recovery: {
      kind: 'none',
      why:
        "the API offers no endpoint that lists a sub-account's keys (modify needs the apiKey, which was in the " +
        'lost answer), and keys have no unique name, so a repeat could create a second key: nothing was repeated. ' +
        "Check the sub-account's keys on the exchange's website: a key created by the lost request has a secret " +
        'nobody received (delete it there). To create one, run the command again with a new --idempotency-key',
    },
  });
  const row = await ctx.prisma.subAccountApiKey.findFirst({
    where: { accountId: action.accountId, createdByActionId: action.id, ...(apiKey ? { apiKey } : {}) },
  });
  return { ...foldSteps([step], 1), result: { apiKey: row ? keyView(row) : null } };
}

/**
 * modify-virtual-subaccount-apikey: permList absent keeps the permissions,
 * empty removes them; ipList absent empties the whitelist (the exchange's rule).
 */
export async function modifyApiKey(ctx: ActionContext<ModifyKey>): Promise<ActionOutcome> {
  const { action, mirror, client } = ctx;
  const request = ctx.plan[0]!;
  const step = await runStep<SubAccountApiKey>(ctx.recorder, {
    request,
    call: () => client.modifyVirtualSubaccountApiKey(request.body as ModifyVirtualSubaccountApiKeyParams),
    onSuccess: (tx, key) => mirror.recordKey(tx, action.accountId, action.id, key, false),
    recovery: {
      kind: 'repeat',
      why: "a modify sets the key's fields to the values given, so sending it again cannot change anything twice",
    },
  });
  const row = await ctx.prisma.subAccountApiKey.findUnique({
    where: { accountId_apiKey: { accountId: action.accountId, apiKey: ctx.input.params.subAccountApiKey } },
  });
  return { ...foldSteps([step], 1), result: { apiKey: row && step.state === 'done' ? keyView(row) : null } };
}

function keyView(row: { apiKey: string; subAccountUid: string; label: string; permList: string[]; ipList: string[] }) {
  return {
    apiKey: row.apiKey,
    subAccountUid: row.subAccountUid,
    label: row.label,
    permList: row.permList,
    ipList: row.ipList,
  };
}
