import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

import { BOARD_PATH, boardGuard, READ_ONLY_BOARD_PATH } from './web-auth.ts';

export { BOARD_PATH, READ_ONLY_BOARD_PATH };

/**
 * bull-board's page links its web fonts from fonts.googleapis.com: offline (and on a network that
 * blocks it) the page waits on a request that fails, and every board view tells Google who opened
 * it. The link is taken out of its HTML, so the page asks nothing of the internet; its styles name
 * `sans-serif` and `monospace` after the web fonts, which the system's fonts then serve.
 */
export function stripExternalLinks(htmlText: string): string {
  return htmlText.replace(/<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi, '');
}

async function mountBoard(app: FastifyInstance, queues: readonly Queue[], path: string, readOnlyMode: boolean) {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode })),
    serverAdapter,
    options: { uiConfig: { boardTitle: readOnlyMode ? 'Queues (read-only)' : 'Queues (admin)' } },
  });
  serverAdapter.setBasePath(path);
  // A scope of its own: its guard runs for every route registered in it (bull-board's, and those
  // of the static and view plugins it brings) and for no other, whatever spelling was routed here.
  await app.register(async (scope) => {
    scope.addHook('onRequest', boardGuard(readOnlyMode ? 'read-only' : 'admin'));
    scope.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      return typeof payload === 'string' && type.startsWith('text/html') ? stripExternalLinks(payload) : payload;
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: path });
  });
}

/**
 * Two boards over the same queues: the admin's at BOARD_PATH with every action, and a read-only
 * one (bull-board's readOnlyMode hides the buttons) at READ_ONLY_BOARD_PATH for accountants. Each
 * board's guard (boardGuard), not the UI, enforces the split: only the admin reaches the admin
 * board's routes, and the read-only board's routes answer reads only.
 */
export async function mountBullBoards(app: FastifyInstance, queues: readonly Queue[]): Promise<void> {
  await mountBoard(app, queues, BOARD_PATH, false);
  await mountBoard(app, queues, READ_ONLY_BOARD_PATH, true);
}
