import { describe, expect, it } from 'vitest';

import { resumeUnfinishedActions } from '../../src/app/services/resume-actions.ts';
import { waitForAction } from '../../src/app/services/submit-action.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { type ActionInput, redactInput, splitSecrets } from '../../src/management/action-input.ts';
import { recordAction } from '../../src/management/action-store.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { PATHS, requestsTo } from './support.ts';

const file = usePipeline('mgmtorphans');
const { db } = file;

describe('an action recorded but never enqueued (a crash between the two)', () => {
  it('gets its job when a worker starts, runs once, and is left alone afterwards', async () => {
    const box = new SecretBox(file.pipeline.runtime.config.masterKey);
    const input: ActionInput = { command: 'subaccount_create', params: { username: 'orphaned' } };
    const { action } = await recordAction(
      db.prisma,
      box,
      file.pipeline.accountId,
      splitSecrets(input),
      'caller:orphan-1',
      redactInput(input),
    );
    file.pipeline.sim.requestLog.clear();
    expect(await resumeUnfinishedActions(file.pipeline.runtime)).toEqual([action.id]);
    const finished = await waitForAction(file.pipeline.runtime, action.id, { pollMs: 50, timeoutMs: 20_000 });
    expect(finished).toMatchObject({ status: 'succeeded', runs: 1 });
    expect(requestsTo(file.pipeline, PATHS.createSub)).toHaveLength(1);
    expect(await resumeUnfinishedActions(file.pipeline.runtime)).toEqual([]);
    expect(requestsTo(file.pipeline, PATHS.createSub)).toHaveLength(1);
  });
});
