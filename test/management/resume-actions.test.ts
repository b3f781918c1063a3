import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeUnfinishedActions } from '../../jobs/management/resume-actions.ts';
import { waitForAction } from '../../jobs/management/submit-action.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { splitSecrets, redactInput, type ActionInput } from '../../src/management/action-input.ts';
import { recordAction } from '../../src/management/action-store.ts';
import { startPipeline, type Pipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, requestsTo } from './support.ts';

const db = useTestDatabase('mgmtorphans');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

describe('an action recorded but never enqueued (a crash between the two)', () => {
  it('gets its job when a worker starts, runs once, and is left alone afterwards', async () => {
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    const input: ActionInput = { command: 'subaccount_create', params: { username: 'orphaned' } };
    const { action } = await recordAction(
      db.prisma,
      box,
      pipeline.accountId,
      splitSecrets(input),
      'caller:orphan-1',
      redactInput(input),
    );
    pipeline.sim.requestLog.clear();
    expect(await resumeUnfinishedActions(pipeline.runtime)).toEqual([action.id]);
    const finished = await waitForAction(pipeline.runtime, action.id, { pollMs: 50, timeoutMs: 20_000 });
    expect(finished).toMatchObject({ status: 'succeeded', runs: 1 });
    expect(requestsTo(pipeline, PATHS.createSub)).toHaveLength(1);
    expect(await resumeUnfinishedActions(pipeline.runtime)).toEqual([]);
    expect(requestsTo(pipeline, PATHS.createSub)).toHaveLength(1);
  });
});
