import fastifyMultipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';

import { requestCurrentFilings } from '../../../jobs/composition/filing-queue.ts';
import { importAwayDecisions } from '../../accounting/cost-basis/away-decision-import.ts';
import { importCostBasis } from '../../accounting/cost-basis/cost-basis-import.ts';
import { FILE_LIMIT_WORDS, SUPPLIED_LIMITS } from '../../accounting/cost-basis/supplied-csv.ts';
import { FILING_CURRENCIES } from '../../accounting/cost-basis/supplied-currency.ts';
import type { SuppliedImportResult, SuppliedInput } from '../../accounting/cost-basis/supplied-file-import.ts';
import { problemLines } from '../../accounting/cost-basis/supplied-rows-error.ts';
import { withdrawSuppliedImport } from '../../accounting/cost-basis/supplied-withdrawal.ts';
import { coinsAway, DEFAULT_COINS_AWAY_DAYS } from '../../accounting/gains/coins-away.ts';
import { importProceeds } from '../../accounting/proceeds/proceeds-import.ts';
import { ValidationError } from '../../errors/index.ts';
import { isUuid } from '../../export/export-request.ts';
import { accountNames, formField, pageContext, sendPage } from '../route-kit.ts';
import { isSuppliedKind, SUPPLIED_KINDS, suppliedImports, type SuppliedKind } from '../supplied-list.ts';
import { awayEntryCsv, costEntryCsv, formMessage, PAGE_FORM, proceedsEntryCsv } from '../supply-entries.ts';
import { supplyPage } from '../supply-page.ts';
import { depositsLackingCost, lackingDeposits, lackingProceeds, supplyPath, unknownCostsOf } from '../unknown-costs.ts';
import type { WebAppDeps } from '../web-deps.ts';

/** Each kind's import, as its command line runs it (the page: only the filing currencies GBP and EUR). */
const IMPORTS: Record<
  SuppliedKind,
  (db: pg.ClientBase, accountId: string, input: SuppliedInput) => Promise<SuppliedImportResult>
> = {
  'cost-basis': (db, accountId, input) => importCostBasis(db, accountId, input, FILING_CURRENCIES),
  proceeds: (db, accountId, input) => importProceeds(db, accountId, input, FILING_CURRENCIES),
  'away-decision': (db, accountId, input) => importAwayDecisions(db, accountId, input),
};

type AccountParams = { Params: { accountId: string }; Querystring: Record<string, string | undefined> };

/** An uploaded file as onFile leaves it in the body: its bytes up to the bound, and whether it went past. */
interface Upload {
  readonly fileName: string;
  readonly bytes: Buffer;
  readonly truncated: boolean;
}

const isUpload = (value: unknown): value is Upload =>
  typeof value === 'object' && value !== null && Buffer.isBuffer((value as Upload).bytes);

/** Reads an uploaded part within the bound; busboy stops at limits.fileSize and marks it truncated. */
async function readUpload(this: unknown, part: MultipartFile & { value?: unknown }): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of part.file) chunks.push(chunk as Buffer);
  const upload: Upload = { fileName: part.filename, bytes: Buffer.concat(chunks), truncated: part.file.truncated };
  part.value = upload;
}

/**
 * The page where an accountant supplies what the tax figures lack (docs/web-page.md, "Supplying
 * costs and proceeds"): a cost per coin moved in and proceeds per P2P sale in a form, or a CSV
 * file uploaded; every supplied figure listed with who, when and from what, and withdrawable with
 * a reason. Both roles may supply (web-auth.ts: the accountant, and the admin); every form carries
 * the CSRF token (the upload's too: a field of the multipart body, read before the guard checks
 * it). Validation is the command line's (src/accounting/cost-basis, proceeds), in the currencies
 * the tax-year figures use (GBP, EUR); any bad row and nothing is written.
 */
export function supplyRoutes(deps: WebAppDeps): FastifyPluginAsync {
  const account = async (raw: string) => {
    const id = raw.toLowerCase();
    const name = isUuid(id) ? (await accountNames(deps.prisma)).get(id) : undefined;
    return name === undefined ? undefined : { id, name };
  };

  const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain').send('no such account\n');

  const page = async (
    request: FastifyRequest<AccountParams>,
    reply: FastifyReply,
    acc: { id: string; name: string },
    outcome: { notice?: string; errors?: readonly string[]; status?: number } = {},
  ) => {
    const coin = request.query.coin?.trim().toUpperCase() || undefined;
    // One reading of the arrivals for both the per-coin table and the forms.
    const arrivals = await depositsLackingCost(deps.pool, acc.id);
    const deposits = lackingDeposits(arrivals).filter((d) => coin === undefined || d.coin === coin);
    const view = {
      account: acc,
      away: await coinsAway(deps.pool, acc.id, new Date(), { days: awayDays }),
      awayDays,
      unknownCosts: unknownCostsOf(arrivals),
      deposits,
      sales: await lackingProceeds(deps.pool, acc.id),
      imports: await suppliedImports(deps.pool, acc.id),
      coin,
      notice: outcome.notice ?? noticeOf(request.query),
      errors: outcome.errors,
    };
    return sendPage(reply, supplyPage(view, pageContext(request, reply)), outcome.status ?? 200);
  };

  /** Imports the input (a page form's canonical CSV or an upload); a bad one answers the page with every problem. */
  const supply = async (
    request: FastifyRequest<AccountParams>,
    reply: FastifyReply,
    acc: { id: string; name: string },
    kind: SuppliedKind,
    input: () => SuppliedInput,
    words: (message: string) => string = (m) => m,
  ) => {
    let result: SuppliedImportResult;
    try {
      const given = input();
      const client = await deps.pool.connect();
      try {
        result = await IMPORTS[kind](client, acc.id, given);
      } finally {
        client.release();
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const status = /at most 16,777,216 bytes/.test(error.message) ? 413 : 400;
      return page(request, reply, acc, { errors: problemLines(error).map(words), status });
    }
    request.log.info(
      { accountId: acc.id, kind, importId: result.importId, inserted: result.inserted, by: `web:${request.role}` },
      result.alreadyImported ? 'supplied figures already imported' : 'supplied figures imported',
    );
    const done = result.alreadyImported ? 'same' : 'added';
    if (!result.alreadyImported) await refigure(acc.id);
    return reply
      .code(303)
      .header('location', `${supplyPath(acc.id)}?${done}=${kind}-${result.importId}#supplied`)
      .send();
  };

  /**
   * The tax years' figures for the changed inputs, asked of the worker now (one job per method and
   * version, shared with any view): by the time the accountant opens the tax years they are being
   * walked, or done.
   */
  async function refigure(accountId: string): Promise<void> {
    await requestCurrentFilings(deps.filingQueue, deps.pool, accountId, deps.valuation);
  }

  const by = (request: FastifyRequest) => `web:${request.role ?? 'accountant'}`;
  const awayDays = deps.valuation?.coinsAwayDays ?? DEFAULT_COINS_AWAY_DAYS;

  return async (app) => {
    await app.register(fastifyMultipart, {
      attachFieldsToBody: 'keyValues',
      onFile: readUpload,
      throwFileSizeLimit: false,
      // One file within the bound (busboy stops reading at it), a handful of short fields.
      limits: { fileSize: SUPPLIED_LIMITS.fileBytes, files: 1, fields: 4, fieldSize: 1000, parts: 6, headerPairs: 50 },
    });

    app.get<AccountParams>('/supplied/:accountId', async (request, reply) => {
      const acc = await account(request.params.accountId);
      return acc === undefined ? notFound(reply) : page(request, reply, acc);
    });

    for (const kind of Object.keys(SUPPLIED_KINDS) as SuppliedKind[]) {
      app.post<AccountParams>(`/supplied/:accountId/${kind}-file`, async (request, reply) => {
        const acc = await account(request.params.accountId);
        if (acc === undefined) return notFound(reply);
        const file = ((request.body ?? {}) as Record<string, unknown>).file;
        return supply(request, reply, acc, kind, () => {
          if (!isUpload(file) || file.bytes.byteLength === 0) throw new ValidationError('file', 'choose a CSV file');
          if (file.truncated) throw new ValidationError('file', `must be at most ${FILE_LIMIT_WORDS}`, file.fileName);
          return { bytes: file.bytes, fileName: file.fileName, suppliedBy: by(request) };
        });
      });
    }

    app.post<AccountParams>('/supplied/:accountId/cost', async (request, reply) => {
      const acc = await account(request.params.accountId);
      if (acc === undefined) return notFound(reply);
      const named = formField(request.body, 'deposit');
      const arrivals = await depositsLackingCost(deps.pool, acc.id);
      const at = arrivals.findIndex((d) => d.recordId === named);
      const deposit = at < 0 ? undefined : arrivals[at];
      let text = '';
      return supply(
        request,
        reply,
        acc,
        'cost-basis',
        () => {
          if (deposit === undefined)
            throw new ValidationError('deposit', 'must be an arrival of unknown cost of this account', named);
          text = costEntryCsv(deposit, (name) => formField(request.body, name), arrivals.slice(0, at));
          return { bytes: Buffer.from(text, 'utf8'), fileName: PAGE_FORM, suppliedBy: by(request) };
        },
        (message) => formMessage(message, text),
      );
    });

    app.post<AccountParams>('/supplied/:accountId/sale', async (request, reply) => {
      const acc = await account(request.params.accountId);
      if (acc === undefined) return notFound(reply);
      const named = formField(request.body, 'sale');
      const sale = (await lackingProceeds(deps.pool, acc.id)).find((s) => s.recordId === named);
      let text = '';
      return supply(
        request,
        reply,
        acc,
        'proceeds',
        () => {
          if (sale === undefined) {
            throw new ValidationError('sale', 'must be a P2P sale of this account still lacking proceeds', named);
          }
          text = proceedsEntryCsv(sale, (name) => formField(request.body, name));
          return { bytes: Buffer.from(text, 'utf8'), fileName: PAGE_FORM, suppliedBy: by(request) };
        },
        (message) => formMessage(message, text),
      );
    });

    app.post<AccountParams>('/supplied/:accountId/away', async (request, reply) => {
      const acc = await account(request.params.accountId);
      if (acc === undefined) return notFound(reply);
      const named = formField(request.body, 'move');
      const move = (await coinsAway(deps.pool, acc.id, new Date(), { days: awayDays })).find(
        (m) => m.recordId === named,
      );
      let text = '';
      return supply(
        request,
        reply,
        acc,
        'away-decision',
        () => {
          if (move === undefined) {
            throw new ValidationError(
              'move',
              `must be a move away of this account not back after ${awayDays} days`,
              named,
            );
          }
          text = awayEntryCsv(move, (name) => formField(request.body, name));
          return { bytes: Buffer.from(text, 'utf8'), fileName: PAGE_FORM, suppliedBy: by(request) };
        },
        (message) => formMessage(message, text),
      );
    });

    app.post<AccountParams>('/supplied/:accountId/withdraw', async (request, reply) => {
      const acc = await account(request.params.accountId);
      if (acc === undefined) return notFound(reply);
      const kind = formField(request.body, 'kind');
      const importId = formField(request.body, 'import') ?? '';
      const reason = formField(request.body, 'reason');
      try {
        if (!isSuppliedKind(kind)) {
          throw new ValidationError('kind', `must be one of ${Object.keys(SUPPLIED_KINDS).join(', ')}`, kind);
        }
        const client = await deps.pool.connect();
        try {
          const done = await withdrawSuppliedImport(
            client,
            SUPPLIED_KINDS[kind].table,
            acc.id,
            importId,
            by(request),
            reason,
          );
          // The decision, logged: kept in the table too (withdrawn_at, _by, _reason).
          request.log.info(
            { accountId: acc.id, kind, importId, by: done.withdrawnBy, reason: done.reason },
            'supplied figures withdrawn',
          );
        } finally {
          client.release();
        }
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return page(request, reply, acc, { errors: [error.message], status: 400 });
      }
      await refigure(acc.id);
      return reply
        .code(303)
        .header('location', `${supplyPath(acc.id)}?withdrawn=${kind}-${importId}#supplied`)
        .send();
    });
  };
}

/** What the last action did, from its redirect's query (`added=cost-basis-12`), in words. */
function noticeOf(query: Record<string, string | undefined>): string | undefined {
  const said = (key: string) => /^(cost-basis|proceeds|away-decision)-(\d{1,18})$/.exec(query[key] ?? '');
  const added = said('added');
  if (added) return `Supplied: ${added[1]} import ${added[2]}. The tax figures are walked again with it.`;
  const same = said('same');
  if (same) return `Already supplied by ${same[1]} import ${same[2]}: nothing written.`;
  const withdrawn = said('withdrawn');
  if (withdrawn) return `Withdrawn: ${withdrawn[1]} import ${withdrawn[2]}. Its figures count nowhere now.`;
  return undefined;
}
