import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import fastifyFormbody from '@fastify/formbody';
import type { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

import { enqueueExport, type ExportJob, type ExportQueue } from '../../jobs/composition/export-queue.ts';
import { GAINS_METHODS } from '../accounting/gains/gains-method.ts';
import { probeRoutes } from '../app/observability/probe-routes.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { ValidationError } from '../errors/index.ts';
import { downloadPath, listExports } from '../export/export-files.ts';
import {
  type ExportRequestInput,
  isUuid,
  parseExportRequest,
  reportParams,
  type ValuationSettings,
} from '../export/export-request.ts';
import type { ExportManifest } from '../export/manifest.ts';
import type { CellKind } from '../export/neutralize.ts';
import { parsePeriod, parseTimeZone } from '../export/period.ts';
import { reportFor, REPORTS } from '../export/reports/index.ts';
import { streamReport } from '../export/stream-report.ts';
import { mountBullBoards } from './bull-board.ts';
import { accountCoverage, type PeriodGap, periodGaps } from './coverage.ts';
import { csvToXlsx } from './csv-to-xlsx.ts';
import { filingYears } from './filing-figures.ts';
import { taxYearsPage } from './filing-page.ts';
import type { Html } from './html.ts';
import { monthlyBalances } from './monthly-balances.ts';
import {
  type AccountView,
  type FormState,
  homePage,
  jobPage,
  type JobView,
  loginPage,
  type PageContext,
} from './pages.ts';
import { presetDates } from './period-presets.ts';
import { webRequestLogger } from './request-log.ts';
import { answerFailuresPlainly, redisReadiness, requireRedis } from './resilience.ts';
import { markSecureIfHttps, registerSecurityPlugins } from './security-plugins.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { lackingProceeds, unknownCosts } from './unknown-costs.ts';
import { authGuard, csrfGuard, roleOfToken, SESSION_COOKIE, type WebTokens } from './web-auth.ts';

export interface WebAppDeps {
  tokens: WebTokens;
  exportDir: string;
  databaseUrl: string;
  /** For the coverage queries (the ledger's multirange arithmetic is raw SQL). */
  pool: pg.Pool;
  prisma: PrismaClient;
  exportQueue: ExportQueue;
  /** The Redis connection the export queue uses, and the sessions: each request waits for it (requireRedis). */
  redis: Redis | Cluster;
  /** QUEUE_PREFIX: the sessions' keys live under it, beside the queues'. */
  prefix: string;
  /** Queues shown on bull-board (the export queue and the others). */
  boardQueues: readonly Queue[];
  /** TRUST_PROXY: which hops may name the client's address (the sign-in lockout counts per address). */
  trustProxy: boolean | number | readonly string[];
  /** config.valuation: the currency and price tolerance of realized gains and income. */
  valuation?: ValuationSettings;
  logger?: FastifyBaseLogger;
}

// My pages load nothing from anywhere and run no script; bull-board (its own routes) needs its scripts.
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const RECENT_JOBS = 25;

function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .send(page.text);
}

function formInput(body: unknown): ExportRequestInput {
  // Shapes only; parseExportRequest checks every field (a repeated one arrives as an array).
  const form = (body ?? {}) as Record<string, string | undefined>;
  // The form always sends the lot options; only the reports that match lots take them.
  const accepts = REPORTS.find((r) => r.name === form.report)?.accepts;
  const lots = accepts?.lots === true;
  return {
    accountId: form.accountId,
    report: form.report,
    from: form.from,
    to: form.to,
    tz: form.tz,
    coin: form.coin,
    includePending: form.includePending === '1' || form.includePending === 'true',
    method: lots ? form.method : undefined,
    longTermDays: lots ? form.longTermDays : undefined,
    valuation: accepts?.valuation === true ? form.valuation : undefined,
  };
}

/** The cell kinds of a report's columns, from its file name (`<report>_<from>_<to>_...csv`). */
function columnKinds(csvName: string): CellKind[] {
  const parts = csvName.replace(/\.csv$/, '').split('_');
  const method = GAINS_METHODS.find((m) => parts.includes(m));
  const report = REPORTS.some((r) => r.name === parts[0]) ? reportFor(parts[0]!, method) : undefined;
  return report ? report.columns.map((c) => c.kind) : [];
}

/** One text field of a form, or undefined (absent, or repeated: a list is never a value here). */
const formField = (body: unknown, name: string): string | undefined => {
  const value = ((body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};

/** The accountants' page: sign in, request reports, watch them finish, download CSV and manifest. */
export async function buildWebApp(deps: WebAppDeps): Promise<FastifyInstance> {
  // A number of hops is what proxy-addr does for a number; fastify's types only take its function.
  const hops = deps.trustProxy;
  const trustProxy =
    typeof hops === 'number'
      ? (_address: string, hop: number) => hop < hops
      : typeof hops === 'object'
        ? [...hops]
        : hops;
  const app = Fastify({
    loggerInstance: deps.logger === undefined ? undefined : webRequestLogger(deps.logger),
    trustProxy,
  });
  app.decorateRequest('role', null);
  answerFailuresPlainly(app);
  // Public (web-auth.ts's PUBLIC): a load balancer asks without signing in.
  await app.register(probeRoutes({ pool: deps.pool, redis: deps.redis }));
  const redisReady = redisReadiness(deps.redis);
  await registerSecurityPlugins(app, { tokens: deps.tokens, redis: deps.redis, prefix: deps.prefix, redisReady });
  await app.register(fastifyFormbody);
  const limiter = new SignInLimiter();
  // After the session plugin's own onRequest hook, which loads the session this one checks.
  app.addHook('onRequest', authGuard(deps.tokens, limiter));
  app.addHook('preHandler', csrfGuard(app));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  requireRedis(app, redisReady);

  // The parts of a period the report's streams do not cover (as of now: a later sync may fill them).
  // A finished export is judged by the coverage when it was written.
  const gapsOf = async (job: ExportJob): Promise<PeriodGap[]> =>
    periodGaps(
      deps.pool,
      job.data.accountId,
      job.data.report,
      parsePeriod(job.data),
      job.finishedOn ? new Date(job.finishedOn) : undefined,
    );

  // A manifest written by another version, with parameters this one cannot read, is listed as it is.
  const manifestGaps = async (accountId: string, m: ExportManifest): Promise<PeriodGap[]> => {
    let period;
    try {
      period = parsePeriod(m.parameters);
    } catch (error) {
      if (error instanceof ValidationError) return [];
      throw error;
    }
    return periodGaps(deps.pool, accountId, m.report, period, new Date(m.generatedAt));
  };

  const accountsById = async () => {
    const accounts = await deps.prisma.account.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
    return new Map(accounts.map((a) => [a.id, a.name]));
  };

  const jobView = async (job: ExportJob, names: Map<string, string>): Promise<JobView> => ({
    id: job.id!,
    state: await job.getState(),
    report: job.data.report,
    reportTitle: REPORTS.find((r) => r.name === job.data.report)?.title ?? job.data.report,
    accountId: job.data.accountId,
    accountName: names.get(job.data.accountId) ?? job.data.accountId,
    from: job.data.from,
    to: job.data.to,
    tz: job.data.tz,
    coin: job.data.coin,
    includePending: job.data.includePending,
    createdAt: new Date(job.timestamp).toISOString().slice(0, 19).replace('T', ' '),
    failedReason: job.failedReason || undefined,
    result: job.returnvalue ?? undefined,
    gaps: await gapsOf(job),
  });

  const context = (request: FastifyRequest, reply: FastifyReply): PageContext => ({
    csrf: reply.generateCsrf(),
    role: request.role ?? 'accountant',
  });

  const home = async (request: FastifyRequest, reply: FastifyReply, form?: FormState) => {
    const names = await accountsById();
    const accounts: AccountView[] = [];
    for (const [id, name] of names) {
      accounts.push({
        id,
        name,
        exports: await Promise.all(
          (await listExports(deps.exportDir, id)).map(async (listed) => ({
            ...listed,
            gaps: await manifestGaps(id, listed.manifest),
          })),
        ),
        coverage: await accountCoverage(deps.pool, deps.prisma, id),
        balances: await monthlyBalances(deps.pool, id),
        unknownCosts: await unknownCosts(deps.pool, id),
      });
    }
    const jobs = (await deps.exportQueue.getJobs(
      ['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed'],
      0,
      RECENT_JOBS,
    )) as ExportJob[];
    const views = await Promise.all(jobs.filter(Boolean).map((j) => jobView(j, names)));
    views.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    return sendPage(
      reply,
      homePage(
        { accounts, reports: REPORTS, jobs: views.slice(0, RECENT_JOBS), form, now: Date.now() },
        context(request, reply),
      ),
      form?.error ? 400 : form?.gaps ? 409 : 200,
    );
  };

  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok\n'));

  app.get('/login', async (_request, reply) => sendPage(reply, loginPage(reply.generateCsrf())));

  // Public, so the auth hook does not check its form token: this route does.
  app.post('/login', { preHandler: app.csrfProtection }, async (request, reply) => {
    const given = ((request.body ?? {}) as Record<string, unknown>).token;
    // Checked before the token is compared: inside a lockout even the right token is refused.
    if (await limiter.blocked(request.ip)) {
      return sendPage(reply, loginPage(reply.generateCsrf(), 'Too many attempts: wait a minute.'), 429);
    }
    const role = typeof given === 'string' ? roleOfToken(given, deps.tokens) : undefined;
    if (!role) {
      await limiter.failed(request.ip, request.log, 'form');
      return sendPage(reply, loginPage(reply.generateCsrf(), 'That token is not valid.'), 401);
    }
    // A new session id at sign-in: an id planted before it (session fixation) is worth nothing.
    await request.session.regenerate();
    markSecureIfHttps(request);
    request.session.role = role;
    return reply.code(303).header('location', '/').send();
  });

  // Deletes the stored session: the cookie, wherever a copy of it is, no longer signs anybody in.
  app.post('/logout', async (request, reply) => {
    await request.session.destroy();
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.code(303).header('location', '/login').send();
  });

  app.get('/', async (request, reply) => home(request, reply));

  app.post('/exports', async (request, reply) => {
    let values = formInput(request.body);
    try {
      // A preset fills the dates (in the chosen zone); the form then shows them.
      const period = formField(request.body, 'period');
      const zone = () => parseTimeZone(formField(request.body, 'tz'));
      const preset = period && period !== 'custom' ? presetDates(period, new Date(), zone()) : undefined;
      if (preset) values = { ...values, ...preset };
      const names = await accountsById();
      if (!values.accountId || !names.has(values.accountId)) {
        throw new ValidationError('account', 'choose one of the registered accounts');
      }
      const parsed = parseExportRequest(values);
      // Warned before it is requested: the accountant confirms a period the data does not cover.
      const gaps = await periodGaps(deps.pool, parsed.accountId, parsed.report, parsed.period);
      if (gaps.length > 0 && formField(request.body, 'acceptPartial') !== '1') {
        return home(request, reply, { values, gaps });
      }
      const job = await enqueueExport(deps.exportQueue, parsed, { replaceFinished: true });
      return reply
        .code(303)
        .header('location', `/jobs/${encodeURIComponent(job.id!)}`)
        .send();
    } catch (error) {
      if (error instanceof ValidationError) return home(request, reply, { values, error: error.message });
      throw error;
    }
  });

  // The figures for the tax return per tax year (filing-figures.ts): the filing summaries' own rows,
  // computed on request (a walk of the account's history per method).
  app.get<{ Params: { accountId: string } }>('/tax-years/:accountId', async (request, reply) => {
    const accountId = request.params.accountId.toLowerCase();
    const name = isUuid(accountId) ? (await accountsById()).get(accountId) : undefined;
    if (name === undefined) return reply.code(404).type('text/plain').send('no such account\n');
    const now = Date.now();
    const input = {
      databaseUrl: deps.databaseUrl,
      pool: deps.pool,
      accountId,
      accountName: name,
      valuation: deps.valuation,
      now,
    };
    const view = {
      account: { id: accountId, name },
      uk: await filingYears(input, 'uk'),
      de: await filingYears(input, 'de'),
      unknownCosts: await unknownCosts(deps.pool, accountId),
      lackingProceeds: await lackingProceeds(deps.pool, accountId),
      now,
    };
    return sendPage(reply, taxYearsPage(view, context(request, reply)));
  });

  app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const job = (await deps.exportQueue.getJob(request.params.id)) as ExportJob | undefined;
    if (!job) return reply.code(404).type('text/plain').send('no such export request\n');
    return sendPage(reply, jobPage(await jobView(job, await accountsById()), context(request, reply)));
  });

  app.get<{ Params: { accountId: string; file: string } }>('/downloads/:accountId/:file', async (request, reply) => {
    // An .xlsx is made on the fly from the CSV of the same name: the CSV stays the record.
    const xlsx = request.params.file.endsWith('.xlsx');
    const csvName = xlsx ? `${request.params.file.slice(0, -'.xlsx'.length)}.csv` : request.params.file;
    const file = downloadPath(deps.exportDir, request.params.accountId, csvName);
    const real = file ? await realpath(file).catch(() => undefined) : undefined;
    const root = await realpath(deps.exportDir).catch(() => undefined);
    const inside = real && root && path.dirname(path.dirname(real)) === root;
    const found = inside ? await stat(real).catch(() => undefined) : undefined;
    if (!file || !found?.isFile()) return reply.code(404).type('text/plain').send('no such file\n');
    if (xlsx) {
      const body = new PassThrough();
      csvToXlsx(real!, columnKinds(csvName), body).catch((error: unknown) => {
        request.log.error({ err: error }, 'xlsx conversion failed');
        body.destroy(error as Error);
      });
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', `attachment; filename="${request.params.file}"`)
        .send(body);
    }
    const type = file.endsWith('.csv')
      ? 'text/csv; charset=utf-8'
      : file.endsWith('.json')
        ? 'application/json; charset=utf-8'
        : 'text/plain; charset=utf-8';
    return reply
      .type(type)
      .header('content-disposition', `attachment; filename="${request.params.file}"`)
      .header('content-length', found.size)
      .send(createReadStream(real!));
  });

  // A report streamed straight into the response, without a file or manifest (for scripts).
  app.get<{ Params: { report: string }; Querystring: Record<string, string> }>(
    '/stream/:report',
    async (request, reply) => {
      let parsed;
      try {
        parsed = parseExportRequest(formInput({ ...(request.query ?? {}), report: request.params.report }));
      } catch (error) {
        if (error instanceof ValidationError) return reply.code(400).type('text/plain').send(`${error.message}\n`);
        throw error;
      }
      const names = await accountsById();
      const accountName = names.get(parsed.accountId);
      if (accountName === undefined) return reply.code(404).type('text/plain').send('no such account\n');
      const body = new PassThrough();
      // Under --method uk or de the report is that method's variant (its own columns), as an export's is.
      const report = reportFor(parsed.report, parsed.method);
      streamReport({
        databaseUrl: deps.databaseUrl,
        report,
        params: reportParams(parsed, accountName, deps.valuation),
        sink: body,
      }).catch((error: unknown) => {
        request.log.error({ err: error }, 'streamed export failed');
        body.destroy(error as Error);
      });
      const extension = report.textFile?.extension ?? '.csv';
      return reply
        .type(report.textFile ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${parsed.report}_${parsed.period.from}_${parsed.period.to}${extension}"`,
        )
        .send(body);
    },
  );

  await mountBullBoards(app, deps.boardQueues);
  return app;
}
