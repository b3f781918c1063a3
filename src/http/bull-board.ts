import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

import { BOARD_PATH, READ_ONLY_BOARD_PATH } from './web-auth.ts';

export { BOARD_PATH, READ_ONLY_BOARD_PATH };

async function mountBoard(app: FastifyInstance, queues: readonly Queue[], path: string, readOnlyMode: boolean) {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode })),
    serverAdapter,
    options: { uiConfig: { boardTitle: readOnlyMode ? 'Queues (read-only)' : 'Queues (admin)' } },
  });
  serverAdapter.setBasePath(path);
  await app.register(serverAdapter.registerPlugin(), { prefix: path });
}

/**
 * Two boards over the same queues: the admin's at BOARD_PATH with every action, and a read-only
 * one (bull-board's readOnlyMode hides the buttons) at READ_ONLY_BOARD_PATH for accountants. The
 * app's auth hook, not the UI, enforces the split: only the admin reaches BOARD_PATH, and
 * READ_ONLY_BOARD_PATH answers reads only.
 */
export async function mountBullBoards(app: FastifyInstance, queues: readonly Queue[]): Promise<void> {
  await mountBoard(app, queues, BOARD_PATH, false);
  await mountBoard(app, queues, READ_ONLY_BOARD_PATH, true);
}
