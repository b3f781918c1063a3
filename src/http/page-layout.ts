import { BALANCE_STYLE } from './balance-chart.ts';
import { BOARD_PATH, READ_ONLY_BOARD_PATH } from './bull-board.ts';
import { TIMELINE_STYLE } from './coverage-timeline.ts';
import { type Html, html } from './html.ts';
import type { Role } from './web-auth.ts';

/** What every signed-in page needs: the form token, and the role (which queue board to link). */
export interface PageContext {
  csrf: string;
  role: Role;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}" />`;

/** The accountants' pages: plain HTML and a little CSS, no script (a finished job is found by meta refresh). */

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #d8dee4;padding:.35rem .5rem;text-align:left;font-size:.92rem}
th{background:#f3f5f7}form.inline{display:inline}fieldset{border:1px solid #d8dee4;padding:1rem;margin-bottom:1.5rem}
label{display:inline-block;margin:0 1rem .5rem 0}code{font-size:.85rem;word-break:break-all}.error{color:#b42318;font-weight:600}
.nowrap{white-space:nowrap}.state-completed{color:#067647}.state-failed{color:#b42318}header{display:flex;justify-content:space-between;align-items:center}
.partial{color:#9a6700;font-weight:600}.scroll{overflow-x:auto}dt{font-weight:600;margin-top:.4rem}dd{margin-left:1rem}
details{margin-top:.75rem}summary{cursor:pointer}
@media (max-width:640px){body{margin:1rem auto}header{flex-direction:column;align-items:flex-start}h1{font-size:1.5rem}
label{display:block;margin:.5rem 0}select{max-width:100%}fieldset{padding:.75rem}}
${TIMELINE_STYLE}
${BALANCE_STYLE}`;

export function layout(title: string, body: Html, options: { refreshSeconds?: number; style?: string } = {}): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}" />` : ''}
        <title>${title} · ledgerline</title>
        <style>
          ${STYLE}
          ${options.style ?? ''}
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html> `;
}

export function header(title: string, context: PageContext): Html {
  const board = context.role === 'admin' ? BOARD_PATH : READ_ONLY_BOARD_PATH;
  return html`<header>
    <h1>${title}</h1>
    <nav>
      <a href="/">Exports</a> · <a href="${board}">Queues${context.role === 'admin' ? ' (admin)' : ''}</a> ·
      <form class="inline" method="post" action="/logout">
        ${csrfField(context.csrf)}<button type="submit">Sign out</button>
      </form>
    </nav>
  </header>`;
}

export function loginPage(csrf: string, error?: string): Html {
  return layout(
    'Sign in',
    html`<h1>ledgerline</h1>
      <p>Sign in with the access token your administrator gave you.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/login">
        ${csrfField(csrf)}
        <label>Token <input type="password" name="token" autocomplete="current-password" required autofocus /></label>
        <button type="submit">Sign in</button>
      </form>`,
  );
}
