import type { AppRuntime } from '../app-runtime.ts';
import { enqueueAction } from './submit-action.ts';

/**
 * Gives every unfinished action a job again. An action is recorded before its
 * job is added, and a management job is never retried by BullMQ, so a crash
 * between the two, or a job that failed outside the action's own handling,
 * would leave the action pending or running with nothing to carry it on.
 * A worker runs this when it starts; the action resumes from its recorded
 * requests (and its run lock keeps a live run from being doubled).
 * Returns the ids of the actions that got a new job.
 */
export async function resumeUnfinishedActions(runtime: AppRuntime): Promise<string[]> {
  const unfinished = await runtime.prisma.managementAction.findMany({
    where: { status: { in: ['pending', 'running'] } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
  const resumed: string[] = [];
  for (const { id } of unfinished) {
    if (await enqueueAction(runtime, id)) resumed.push(id);
  }
  return resumed;
}
