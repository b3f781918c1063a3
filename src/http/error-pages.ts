import type { FastifyReply, FastifyRequest } from 'fastify';

import { html } from './html.ts';
import { layout } from './page-layout.ts';
import { sendPage } from './route-kit.ts';

/**
 * What went wrong, for a person: a browser gets a page saying what happened and what to do (never
 * fastify's JSON, never a bare line of text); a script (no `text/html` in its Accept) gets the one
 * line `text`, as before.
 */
export interface Problem {
  readonly status: number;
  /** The page's heading: what happened, in a few words. */
  readonly title: string;
  /** One line: what happened (the whole answer a script gets). */
  readonly text: string;
  /** What to do about it. */
  readonly advice: string;
}

export const wantsPage = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('text/html');

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (!wantsPage(reply.request)) {
    return reply.code(problem.status).type('text/plain; charset=utf-8').send(`${problem.text}\n`);
  }
  const sentence = problem.text.charAt(0).toUpperCase() + problem.text.slice(1);
  return sendPage(
    reply,
    layout(
      problem.title,
      html`<h1>${problem.title}</h1>
        <p class="error" role="alert">${sentence}.</p>
        <p>${problem.advice}</p>
        <p><a href="/">Back to the exports page</a></p>`,
    ),
    problem.status,
  );
}

const BACK = 'Go back to the exports page and follow a link from there; if you typed or pasted the address, check it.';

/** The problems the pages answer, by what happened. */
export const PROBLEMS = {
  notFound: (what: string): Problem => ({ status: 404, title: 'Not found', text: `no such ${what}`, advice: BACK }),
  noRoute: (): Problem => ({
    status: 404,
    title: 'No such page',
    text: 'there is no page at this address',
    advice: BACK,
  }),
  badAddress: (): Problem => ({
    status: 400,
    title: 'This address cannot be read',
    text: 'the address is malformed or one of its parts is too long',
    advice: BACK,
  }),
  badRequest: (): Problem => ({
    status: 400,
    title: 'This request cannot be read',
    text: 'bad request',
    advice: 'Go back, reload the page and send the form again; if it happens again, tell your administrator.',
  }),
  invalid: (message: string): Problem => ({
    status: 400,
    title: 'Not accepted',
    text: message,
    advice: 'Go back, correct it and send it again.',
  }),
  tooLarge: (): Problem => ({
    status: 413,
    title: 'Too large',
    text: 'what was sent is larger than this page accepts',
    advice: 'Send a smaller file, or split it into several.',
  }),
  formExpired: (): Problem => ({
    status: 403,
    title: 'This form has expired',
    text: 'this form has expired or was not sent from this site: go back, reload the page and try again',
    advice: 'Forms are valid while you are signed in on this site: reload the page the form is on and send it again.',
  }),
  refused: (status: number, text: string): Problem => ({
    status,
    title: status === 401 ? 'Sign in required' : status === 429 ? 'Too many attempts' : 'Not allowed',
    text,
    advice:
      status === 401
        ? 'Sign in with your access token, then open this address again.'
        : status === 429
          ? 'Wait a minute, then try again with the right token.'
          : 'Your access token does not allow this; ask your administrator if you need it.',
  }),
  unavailable: (text = 'temporarily unavailable, try again later'): Problem => ({
    status: 503,
    title: 'Temporarily unavailable',
    text,
    advice:
      'Nothing was lost: try again in a minute. If it lasts, tell your administrator (the server log names the cause).',
  }),
} as const;
