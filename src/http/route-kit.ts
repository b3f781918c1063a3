import type { FastifyReply, FastifyRequest } from 'fastify';

import type { PrismaClient } from '../db/prisma.ts';
import type { Html } from './html.ts';
import type { PageContext } from './page-layout.ts';

// The pages load nothing from anywhere and run no script; bull-board (its own routes) needs its scripts.
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** An HTML page with the pages' content security policy. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .send(page.text);
}

/** What every signed-in page needs: a form token, and the role signed in. */
export const pageContext = (request: FastifyRequest, reply: FastifyReply): PageContext => ({
  csrf: reply.generateCsrf(),
  role: request.role ?? 'accountant',
});

/** One text field of a form, or undefined (absent, or repeated: a list is never a value here). */
export const formField = (body: unknown, name: string): string | undefined => {
  const value = ((body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};

/** The registered accounts' names by id, in name order. */
export async function accountNames(prisma: PrismaClient): Promise<Map<string, string>> {
  const accounts = await prisma.account.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
  return new Map(accounts.map((a) => [a.id, a.name]));
}
