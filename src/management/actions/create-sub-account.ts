import type { BatchCreatedSubAccount, CreatedSubAccount, CreateSubParams } from '../../exchange/index.ts';
import type { ActionInput } from '../action-input.ts';
import { LimitReachedError } from '../errors.ts';
import { checkSubAccountRoom } from '../limits.ts';
import { runStep, type StepResult } from '../run-step.ts';
import { type ActionContext, type ActionOutcome, foldSteps } from './action-context.ts';

type CreateSub = Extract<ActionInput, { command: 'subaccount_create' }>;
type BatchCreate = Extract<ActionInput, { command: 'subaccount_batch_create' }>;

const NO_LISTING =
  'no endpoint of the API lists sub-accounts, so the same create (same unique name) was sent again as a probe: ' +
  'the exchange creates it if the lost request had not, and refuses it with 40060 if the name exists';

/** A limit reached since the action was recorded (another action got there first): refused unsent. */
async function roomFor(ctx: ActionContext, adding: number): Promise<StepResult | undefined> {
  try {
    await checkSubAccountRoom(ctx.prisma, ctx.action.accountId, adding);
    return undefined;
  } catch (error) {
    if (error instanceof LimitReachedError) return { state: 'failed', error: error.message };
    throw error;
  }
}

/** create-sub (v3): one unified virtual sub-account. */
export async function createSubAccount(ctx: ActionContext<CreateSub>): Promise<ActionOutcome> {
  const { action, mirror, client } = ctx;
  const request = ctx.plan[0]!;
  const username = ctx.input.params.username;
  const full = ctx.recorder.of(request.step).length === 0 ? await roomFor(ctx, 1) : undefined;
  const step =
    full ??
    (await runStep<CreatedSubAccount>(ctx.recorder, {
      request,
      call: () => client.createSub(request.body as CreateSubParams),
      onSuccess: (tx, sub) => mirror.recordCreatedSub(tx, action.accountId, action.id, username, sub),
      recovery: {
        kind: 'probe',
        why: NO_LISTING,
        exists:
          `the name ${username} exists now, but that does not prove the lost request created it: names are unique ` +
          'on the exchange, and had another account held it, the lost answer would have been this same refusal. ' +
          "Check the platform's sub-account page; nothing was mirrored and nothing more is sent",
      },
    }));
  const row = await ctx.prisma.subAccount.findUnique({
    where: { accountId_nameKey: { accountId: action.accountId, nameKey: username.toLowerCase() } },
  });
  const result = row
    ? { subAccount: { name: row.name, subUid: row.subUid, email: row.email, status: row.status, note: row.note } }
    : { subAccount: null };
  return { ...foldSteps([step], 1), result };
}

/** batch-create-subaccount-and-apikey: any number of sub-accounts, 5 per request, in order. */
export async function batchCreateSubAccounts(ctx: ActionContext<BatchCreate>): Promise<ActionOutcome> {
  const { action, mirror, client } = ctx;
  const items = ctx.input.params.items;
  const results: StepResult[] = [];
  // Names sent in a request whose outcome is unknown: the exchange may hold them now.
  const unknown: string[] = [];
  for (const request of ctx.plan) {
    const names = request.itemIndices!.map((index) => items[index]!.subAccountName);
    const full = ctx.recorder.of(request.step).length === 0 ? await roomFor(ctx, names.length) : undefined;
    const step =
      full ??
      (await runStep<BatchCreatedSubAccount[]>(ctx.recorder, {
        request,
        call: () => client.batchCreateSubaccountAndApiKey(request.body as BatchCreate['params']['items']),
        onSuccess: (tx, created) => mirror.recordBatchCreated(tx, action.accountId, action.id, created),
        recovery: {
          kind: 'probe',
          why: NO_LISTING,
          exists:
            `a name of this batch exists now (${names.join(', ')}): either the lost batch (all or nothing) created ` +
            'all of them, with API keys whose secrets were in the lost answer, or a name was held by another ' +
            "account and the lost batch was refused. Check the platform's sub-account page; nothing was mirrored, " +
            'and the rest of the action is not sent',
        },
      }));
    results.push(step);
    if (step.state === 'ambiguous') unknown.push(...names);
    if (step.state !== 'done') break;
  }
  return { ...foldSteps(results, ctx.plan.length), result: await batchSummary(ctx, unknown) };
}

/**
 * What the exchange holds after the action, as far as its answers prove: `created` (mirrored),
 * `unknown` (sent in a batch whose answer was lost: possibly created, with keys whose secrets
 * were in that answer) and `notCreated` (refused, or never sent).
 */
async function batchSummary(ctx: ActionContext<BatchCreate>, unknown: readonly string[]) {
  const { accountId, id } = ctx.action;
  const names = ctx.input.params.items.map((item) => item.subAccountName);
  const subs = await ctx.prisma.subAccount.findMany({
    where: { accountId, nameKey: { in: names.map((name) => name.toLowerCase()) }, createdByActionId: id },
  });
  const keys = await ctx.prisma.subAccountApiKey.findMany({ where: { accountId, createdByActionId: id } });
  const byName = new Map(subs.map((sub) => [sub.nameKey, sub]));
  return {
    created: names.flatMap((name) => {
      const sub = byName.get(name.toLowerCase());
      if (!sub) return [];
      const key = keys.find((k) => k.subAccountUid === sub.subUid);
      return [{ name: sub.name, subUid: sub.subUid, apiKey: key?.apiKey ?? null }];
    }),
    unknown: unknown.filter((name) => !byName.has(name.toLowerCase())),
    notCreated: names.filter((name) => !byName.has(name.toLowerCase()) && !unknown.includes(name)),
  };
}
