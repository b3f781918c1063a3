import type { FastifyPluginAsync, FastifyReply } from 'fastify';

import { GAINS_METHODS, type RulesMethod } from '../../accounting/gains/gains-method.ts';
import { type TaxYear } from '../../accounting/gains/tax-years.ts';
import { ValidationError } from '../../errors/index.ts';
import { isUuid, parseExportRequest } from '../../export/export-request.ts';
import { recordRefs } from '../exchange-records.ts';
import {
  filterWords,
  futuresRowsHref,
  type GainsFilter,
  gainsRowsHref,
  incomeRowsHref,
  isGainsFilter,
} from '../figure-links.ts';
import { futuresRecords, gainsRows, incomeRows, type RowsRequest, taxYearOfLabel } from '../figure-rows.ts';
import {
  DE_GAIN_COLUMNS,
  deGainCells,
  INCOME_COLUMNS,
  incomeCells,
  ROWS_PER_PAGE,
  type RowsPageSpec,
  streamRowsPage,
  UK_GAIN_COLUMNS,
  ukGainCells,
} from '../figure-rows-page.ts';
import { html } from '../html.ts';
import { header, layout } from '../page-layout.ts';
import { scopeWords } from '../plain-words.ts';
import { accountNames, PAGE_CSP, pageContext, sendPage } from '../route-kit.ts';
import { recordTimeWords } from '../tax-year-words.ts';
import type { WebAppDeps } from '../web-deps.ts';

type Params = { accountId: string; method: string; year: string };
type Query = { coin?: string; rule?: string; page?: string };

/** A page that says what was asked for and not found, with the way back. */
function notFound(reply: FastifyReply, what: string, back: string) {
  return sendPage(
    reply,
    layout(
      'Not found',
      html`<h1>Not found</h1>
        <p>${what}</p>
        <p><a href="${back}">Back</a></p>`,
    ),
    404,
  );
}

const MAX_PAGE = 100_000;

/** The request's account, method, tax year and page, or the reason it names none. */
async function resolve(
  deps: WebAppDeps,
  params: Params,
  query: Query,
): Promise<{ input: RowsRequest; page: number } | { missing: string; back: string }> {
  const accountId = params.accountId.toLowerCase();
  const name = isUuid(accountId) ? (await accountNames(deps.prisma)).get(accountId) : undefined;
  if (name === undefined) return { missing: 'There is no such account.', back: '/' };
  const back = `/tax-years/${accountId}`;
  const method = (GAINS_METHODS as readonly string[]).includes(params.method) ? params.method : undefined;
  if (method !== 'uk' && method !== 'de') return { missing: 'Tax years are kept for uk and de only.', back };
  const year = taxYearOfLabel(method, params.year);
  if (year === undefined) {
    const like = method === 'uk' ? '2025-26' : '2025';
    return { missing: `There is no tax year "${params.year}": a ${method} year is named like ${like}.`, back };
  }
  const page = query.page === undefined ? 1 : Number(query.page);
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) {
    return { missing: `There is no page "${query.page}": pages are numbered from 1.`, back };
  }
  const input = {
    databaseUrl: deps.databaseUrl,
    accountId,
    accountName: name,
    valuation: deps.valuation,
    method: method as RulesMethod,
    year,
    now: Date.now(),
  };
  return { input, page };
}

/** A coin as the export takes it (upper case, checked), or the reason it is none. */
function coinOf(value: string | undefined, accountId: string): string | undefined | ValidationError {
  if (value === undefined || value === '') return undefined;
  try {
    return parseExportRequest({
      report: 'realized-gains',
      accountId,
      from: '2025-01-01',
      to: '2025-01-01',
      coin: value,
    }).coin;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

function sendStream(reply: FastifyReply, body: NodeJS.ReadableStream) {
  return reply.code(200).type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).send(body);
}

const yearWord = (year: TaxYear) => year.label;

/**
 * From a figure of the tax years page to the rows behind it (issue 41 item 5): a year's gains
 * rows (per coin, per rule or holding), its income receipts and its futures records, each row
 * with the exchange's records it came from (exchange-records.ts).
 */
export function figureRowsRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: Params; Querystring: Query }>(
      '/tax-years/:accountId/:method/:year/gains',
      async (request, reply) => {
        const found = await resolve(deps, request.params, request.query);
        if ('missing' in found) return notFound(reply, found.missing, found.back);
        const { input, page } = found;
        const coin = coinOf(request.query.coin, input.accountId);
        const back = `/tax-years/${input.accountId}#${input.method}`;
        if (coin instanceof ValidationError) return notFound(reply, `No such coin: ${coin.message}.`, back);
        const ruleText = request.query.rule;
        if (ruleText !== undefined && ruleText !== '' && !isGainsFilter(input.method, ruleText)) {
          return notFound(reply, `There is no rule "${ruleText}" for ${input.method}.`, back);
        }
        const rule = ruleText === '' ? undefined : (ruleText as GainsFilter | undefined);
        const uk = input.method === 'uk';
        const what = [coin, rule === undefined ? undefined : filterWords(input.method, rule)].filter(Boolean);
        const spec: RowsPageSpec = {
          method: input.method,
          year: input.year,
          title: `Gains rows${what.length > 0 ? `: ${what.join(', ')}` : ''}`,
          intro: html`<p>
            Each part of a sale as <em>Realized gains</em> (${uk ? 'UK share matching' : 'German private sales'})
            computes it for the tax year ${yearWord(input.year)}, ${ROWS_PER_PAGE} rows a page, amounts to the penny or
            cent (the file keeps every decimal). Under each row, the exchange's records it came from.
          </p>`,
          columns: uk ? UK_GAIN_COLUMNS : DE_GAIN_COLUMNS,
          cells: uk ? ukGainCells : deGainCells,
          refs: (r) => [
            ...recordRefs(r.disposal_record_ids),
            ...recordRefs(uk ? r.acquisition_record_ids : r.lot_record_ids),
          ],
          page,
          pageHref: (p) => gainsRowsHref(input.accountId, input.method, input.year.label, { coin, rule, page: p }),
          backHref: back,
        };
        const rows = gainsRows(input, { coin, rule });
        const lookup = { pool: deps.pool, accountId: input.accountId, log: request.log };
        return sendStream(reply, streamRowsPage(spec, pageContext(request, reply), rows, lookup));
      },
    );

    app.get<{ Params: Params; Querystring: Query }>(
      '/tax-years/:accountId/:method/:year/income',
      async (request, reply) => {
        const found = await resolve(deps, request.params, request.query);
        if ('missing' in found) return notFound(reply, found.missing, found.back);
        const { input, page } = found;
        const spec: RowsPageSpec = {
          method: input.method,
          year: input.year,
          title: 'Income receipts',
          intro: html`<p>
            The rewards, interest and other receipts of the tax year ${yearWord(input.year)}, each valued at receipt, as
            the <em>Income</em> report states them.
          </p>`,
          columns: INCOME_COLUMNS,
          cells: incomeCells(input.method),
          refs: (r) => recordRefs(r.record_id),
          page,
          pageHref: (p) => incomeRowsHref(input.accountId, input.year.label, p),
          backHref: `/tax-years/${input.accountId}#${input.method}`,
        };
        const lookup = { pool: deps.pool, accountId: input.accountId, log: request.log };
        return sendStream(reply, streamRowsPage(spec, pageContext(request, reply), incomeRows(input), lookup));
      },
    );

    app.get<{ Params: Params; Querystring: Query }>(
      '/tax-years/:accountId/:method/:year/futures',
      async (request, reply) => {
        const found = await resolve(deps, request.params, request.query);
        if ('missing' in found) return notFound(reply, found.missing, found.back);
        const { input, page } = found;
        const back = `/tax-years/${input.accountId}#${input.method}`;
        const coin = coinOf(request.query.coin, input.accountId);
        if (coin === undefined || coin instanceof ValidationError) {
          return notFound(reply, 'Name the margin coin of the futures line (?coin=USDT).', back);
        }
        const rows = await futuresRecords(deps.pool, input.accountId, input.year, coin, {
          offset: (page - 1) * ROWS_PER_PAGE,
          limit: ROWS_PER_PAGE,
        });
        const more = rows.length > ROWS_PER_PAGE;
        const shown = rows.slice(0, ROWS_PER_PAGE);
        const title = `Futures records: ${coin}`;
        const href = (p: number) => futuresRowsHref(input.accountId, input.method, input.year.label, coin, p);
        return sendPage(
          reply,
          layout(
            title,
            html`${header(title, pageContext(request, reply))}
              <p><a href="${back}">Back to the tax years</a></p>
              <p>
                The futures ledger's records of the tax year ${yearWord(input.year)} settled in ${coin}: what the year's
                futures line sums (transfers between wallets left out), oldest first, ${ROWS_PER_PAGE} a page.
              </p>
              <div class="scroll">
                <table class="futures-records">
                  <thead>
                    <tr>
                      <th>Id at the exchange</th>
                      <th>Time</th>
                      <th>Type</th>
                      <th>Market</th>
                      <th>Amount</th>
                      <th>Fee</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${shown.map(
                      (r) =>
                        html`<tr data-ref="futures:${r.id}">
                          <td><code>${r.id}</code></td>
                          <td class="nowrap">${recordTimeWords(input.method, Number(r.ms))}</td>
                          <td>${r.type}</td>
                          <td>${r.symbol} (${scopeWords(r.productType)})</td>
                          <td class="nowrap">${r.amount} ${coin}</td>
                          <td class="nowrap">${r.fee}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              <p class="pager" data-rows="${shown.length}">
                ${shown.length === 0 ? 'No records.' : `Records ${(page - 1) * ROWS_PER_PAGE + 1} to ${(page - 1) * ROWS_PER_PAGE + shown.length}.`}
                ${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Previous page</a>` : ''}
                ${more ? html`<a href="${href(page + 1)}" rel="next">Next page</a>` : ''}
              </p>`,
          ),
        );
      },
    );
  };
}
