import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const BOARD_PATH = '/admin/queues';

/**
 * bull-board for operators, under the same sign-in as the accountants' page: the app's auth
 * hook runs before every route, these included.
 */
export async function mountBullBoard(app: FastifyInstance, queues: readonly Queue[]): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter });
  serverAdapter.setBasePath(BOARD_PATH);
  await app.register(serverAdapter.registerPlugin(), { prefix: BOARD_PATH });
}
