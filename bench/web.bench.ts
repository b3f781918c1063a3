/**
 * The tax years page benchmark (issue 41 item 2): a view must come back in a second when the
 * figures are stored (warm) and in three when they must be computed first (cold), and the web
 * process must keep answering meanwhile: /healthz under 100 ms while ten views load.
 *
 * Against the demo's account (`npm run demo` first: its DATABASE_URL from .ledgerline-demo.env,
 * or BENCH_WEB_DATABASE_URL; the account with the most spot records, or BENCH_WEB_ACCOUNT by
 * name), as deployed: `ledgerline web --no-worker` in a process of its own, and the filing
 * worker (createFilingWorker, as `ledgerline worker` runs it: its walks in threads) in another,
 * both on a QUEUE_PREFIX of their own (removed at the end). Phases:
 * - cold: the account's stored figures deleted, one view, re-asked after the Refresh header's
 *   seconds on each "being calculated" answer until the figures are current (as a browser follows
 *   it); BENCH_WEB_COLD runs (3);
 * - a new web process: restarted, its first view with the figures stored;
 * - warm: BENCH_WEB_WARM views one after the other (20);
 * - 10 concurrent views, warm, for BENCH_WEB_SECONDS (15): views/s, p50/p95, /healthz sampled
 *   every 100 ms on a connection of its own, and the web process's CPU (/proc, every thread);
 * - 10 concurrent views, cold: the figures deleted, ten views at once until each shows current
 *   figures; how many walks the worker ran (concurrent views share one per method), /healthz meanwhile.
 *
 *   npm run bench:web
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';

import { Queue } from 'bullmq';
import pg from 'pg';

import { createRuntime } from '../jobs/composition/create-runtime.ts';
import { createFilingWorker } from '../jobs/composition/workers.ts';
import { QUEUE_NAMES } from '../jobs/definitions.ts';
import type { FilingJobResult } from '../jobs/payloads/filing-job.ts';
import { createRedisConnection } from '../src/app/redis-connection.ts';
import { getConfig } from '../src/config/config.ts';
import { ProcessCpu } from './lib/process-cpu.ts';

const COLD_RUNS = Number(process.env.BENCH_WEB_COLD ?? 3);
const WARM_VIEWS = Number(process.env.BENCH_WEB_WARM ?? 20);
const CONCURRENT = 10;
const CONCURRENT_SECONDS = Number(process.env.BENCH_WEB_SECONDS ?? 15);
const HEALTH_EVERY_MS = 100;

const round = (value: number, places = 3) => Number(value.toFixed(places));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function quantiles(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return { n: sorted.length, p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? NaN) };
}

// ---------------------------------------------------------------------------- child: the filing worker
async function workerChild(): Promise<void> {
  const runtime = createRuntime(getConfig(), { poolSize: 2 });
  const filing = createFilingWorker(runtime, { warmFilingThreads: true });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.once('SIGTERM', resolve));
  await filing.close();
  await runtime.close();
}

// ---------------------------------------------------------------------------- the parent
function start(args: string[], env: NodeJS.ProcessEnv, ready?: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
    proc.on('error', reject);
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    if (ready === undefined) return resolve(proc);
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) resolve(proc);
    });
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  proc.removeAllListeners('exit');
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
}

/** Signs in as a browser does (the sign-in page's CSRF cookie and token, then its form): the Cookie header. */
async function signIn(base: string, token: string): Promise<string> {
  const page = await fetch(`${base}/login`);
  const csrfCookie = /ll_csrf=([^;]+)/.exec(page.headers.getSetCookie().join('; '))?.[1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (csrfCookie === undefined || csrf === undefined) throw new Error('the sign-in page set no CSRF cookie or token');
  const answer = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ll_csrf=${csrfCookie}` },
    body: new URLSearchParams({ token, _csrf: csrf }).toString(),
  });
  const session = /ll_session=([^;]+)/.exec(answer.headers.getSetCookie().join('; '))?.[1];
  if (answer.status !== 303 || session === undefined) throw new Error(`sign-in answered ${answer.status}`);
  return `ll_csrf=${csrfCookie}; ll_session=${session}`;
}

interface View {
  ms: number;
  computing: boolean;
  /** The Refresh header's seconds: when a browser asks again. */
  refreshSeconds: number;
  bytes: number;
}

async function view(base: string, path: string, cookie: string): Promise<View> {
  const started = performance.now();
  const answer = await fetch(`${base}${path}`, { headers: { cookie } });
  const body = await answer.text();
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${body.slice(0, 200)}`);
  const refresh = answer.headers.get('refresh');
  return {
    ms: performance.now() - started,
    computing: refresh !== null,
    refreshSeconds: refresh === null ? 0 : Number(refresh),
    bytes: body.length,
  };
}

/** A view asked again as a browser does (after the Refresh header's seconds) while it says "being calculated": until the figures are current. */
async function viewUntilCurrent(base: string, path: string, cookie: string) {
  const started = performance.now();
  const first = await view(base, path, cookie);
  let last = first;
  let views = 1;
  while (last.computing) {
    await sleep(last.refreshSeconds * 1000);
    last = await view(base, path, cookie);
    views++;
  }
  return { firstMs: first.ms, readyMs: performance.now() - started, views, computingFirst: first.computing };
}

/** /healthz every HEALTH_EVERY_MS until stopped: its latencies. */
function sampleHealth(base: string): { stop: () => Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const answer = await fetch(`${base}/healthz`);
      await answer.text();
      samples.push(performance.now() - started);
      await sleep(HEALTH_EVERY_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

async function main(): Promise<void> {
  const config = getConfig();
  const databaseUrl = process.env.BENCH_WEB_DATABASE_URL ?? config.databaseUrl;
  const token = config.web.token;
  if (token === undefined) throw new Error('LEDGERLINE_WEB_TOKEN is not set: run `npm run demo` first');
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const { rows: accounts } = await db.query<{ id: string; name: string; records: string }>(
    `SELECT a.id, a.name, (SELECT count(*) FROM spot_record s WHERE s.account_id = a.id)::text AS records
       FROM account a WHERE $1::text IS NULL OR a.name = $1 ORDER BY 3 DESC LIMIT 1`,
    [process.env.BENCH_WEB_ACCOUNT ?? null],
  );
  const account = accounts[0];
  if (account === undefined) throw new Error(`no account in ${databaseUrl}: run \`npm run demo\` first`);
  const history = await db.query<{ spot: string; futures: string; margin: string; p2p: string }>(
    `SELECT (SELECT count(*) FROM spot_record WHERE account_id = $1)::text AS spot,
            (SELECT count(*) FROM futures_ledger_record WHERE account_id = $1)::text AS futures,
            (SELECT count(*) FROM margin_ledger_record WHERE account_id = $1)::text AS margin,
            (SELECT count(*) FROM p2p_ledger_record WHERE account_id = $1)::text AS p2p`,
    [account.id],
  );
  const prefix = `bench-web-${randomBytes(4).toString('hex')}`;
  const port = Number(process.env.WEB_PORT ?? 8101);
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: prefix,
    WEB_PORT: String(port),
    WEB_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  const page = `/tax-years/${account.id}`;
  const forget = () => db.query('DELETE FROM filing_figures WHERE account_id = $1', [account.id]);

  const worker = await start(['bench/web.bench.ts', '--worker'], env, /ready/);
  const webArgs = ['src/cli/main.ts', 'web', '--no-worker'];
  let web = await start(webArgs, env, /listening on/);
  const connection = createRedisConnection(config.redisUrl);
  const filingQueue = new Queue<unknown, FilingJobResult>('filing', { prefix, connection });
  try {
    const cookie = await signIn(base, token);

    // The machine's floor: /healthz with no view running (a shared, loaded machine answers slower).
    const idle = sampleHealth(base);
    await sleep(5_000);
    const healthIdle = await idle.stop();

    // Cold: nothing stored for the account (the first run also starts the worker's threads).
    const cold: Awaited<ReturnType<typeof viewUntilCurrent>>[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      await forget();
      cold.push(await viewUntilCurrent(base, page, cookie));
    }

    // A web process just started (nothing in its memory), the figures stored: the first view after a deploy.
    await stop(web);
    web = await start(webArgs, env, /listening on/);
    const newProcess = await view(base, page, cookie);
    if (newProcess.computing) throw new Error('a new web process found the stored figures not current');

    // Warm: the figures stored, views one after the other.
    const warm: number[] = [];
    for (let i = 0; i < WARM_VIEWS; i++) {
      const v = await view(base, page, cookie);
      if (v.computing) throw new Error('a warm view found its figures being computed');
      warm.push(v.ms);
    }

    // Ten views at a time, warm, with /healthz sampled and the web process's CPU read.
    const cpu = new ProcessCpu([{ name: 'web', pids: () => [web.pid!] }]);
    const health = sampleHealth(base);
    await cpu.start();
    const concurrent: number[] = [];
    const phaseStart = performance.now();
    const until = phaseStart + CONCURRENT_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (performance.now() < until) concurrent.push((await view(base, page, cookie)).ms);
      }),
    );
    const phaseSeconds = (performance.now() - phaseStart) / 1000;
    const webCpuSeconds = (await cpu.stop()).web!;
    const healthWarm = await health.stop();

    // Ten views at once, cold: they share one computation per method.
    await forget();
    const before = Date.now();
    const coldHealth = sampleHealth(base);
    const coldCpu = new ProcessCpu([{ name: 'web', pids: () => [web.pid!] }]);
    await coldCpu.start();
    const coldStart = performance.now();
    const coldViews = await Promise.all(Array.from({ length: CONCURRENT }, () => viewUntilCurrent(base, page, cookie)));
    const coldSeconds = (performance.now() - coldStart) / 1000;
    const coldWebCpu = (await coldCpu.stop()).web!;
    const healthCold = await coldHealth.stop();
    const jobs = await filingQueue.getJobs(['completed'], 0, 1_000);
    const walks = jobs.filter((j) => (j.finishedOn ?? 0) >= before && j.returnvalue?.skipped === false);
    const computeMs = walks.map((j) => j.returnvalue.computeMs);

    const warmQ = quantiles(warm);
    const concurrentQ = quantiles(concurrent);
    const healthQ = quantiles(healthWarm);
    const healthIdleQ = quantiles(healthIdle);
    const healthColdQ = quantiles(healthCold);
    const coldReady = quantiles(cold.map((c) => c.readyMs));
    const coldTogether = quantiles(coldViews.map((c) => c.readyMs));
    const viewsPerSecond = concurrent.length / phaseSeconds;
    const h = history.rows[0]!;
    const rows: [string, string][] = [
      ['account', `${account.name}: ${h.spot} spot, ${h.futures} futures, ${h.margin} margin, ${h.p2p} P2P records`],
      [
        'cold view, figures current (target <= 3 s)',
        `${cold.map((c) => `${(c.readyMs / 1000).toFixed(2)} s`).join(', ')} (first answer ${cold
          .map((c) => `${(c.firstMs / 1000).toFixed(2)} s${c.computingFirst ? ' computing' : ''}`)
          .join(', ')})`,
      ],
      ['first view of a new web process, figures stored', `${newProcess.ms.toFixed(0)} ms`],
      [
        'warm view (target <= 1 s)',
        `p50 ${warmQ.p50.toFixed(0)} ms, p95 ${warmQ.p95.toFixed(0)} ms, max ${warmQ.max.toFixed(0)} ms`,
      ],
      [
        `${CONCURRENT} concurrent warm views`,
        `${viewsPerSecond.toFixed(1)} views/s, p50 ${concurrentQ.p50.toFixed(0)} ms, p95 ${concurrentQ.p95.toFixed(0)} ms (${concurrentQ.n} views)`,
      ],
      [
        '/healthz with no view (the floor)',
        `p50 ${healthIdleQ.p50.toFixed(1)} ms, p95 ${healthIdleQ.p95.toFixed(1)} ms, max ${healthIdleQ.max.toFixed(1)} ms`,
      ],
      [
        '/healthz meanwhile (target < 100 ms)',
        `p50 ${healthQ.p50.toFixed(1)} ms, p95 ${healthQ.p95.toFixed(1)} ms, max ${healthQ.max.toFixed(1)} ms`,
      ],
      [
        'web process CPU meanwhile',
        `${webCpuSeconds.toFixed(2)} s over ${phaseSeconds.toFixed(1)} s (${(webCpuSeconds / phaseSeconds).toFixed(2)} cores, ${((webCpuSeconds / concurrent.length) * 1000).toFixed(1)} ms a view)`,
      ],
      [
        `${CONCURRENT} concurrent cold views`,
        `figures current after p50 ${(coldTogether.p50 / 1000).toFixed(2)} s, max ${(coldTogether.max / 1000).toFixed(2)} s; ${walks.length} walks (${computeMs.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')})`,
      ],
      [
        '/healthz meanwhile',
        `p50 ${healthColdQ.p50.toFixed(1)} ms, p95 ${healthColdQ.p95.toFixed(1)} ms, max ${healthColdQ.max.toFixed(1)} ms; web CPU ${coldWebCpu.toFixed(2)} s over ${coldSeconds.toFixed(1)} s`,
      ],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log('\ntax years page benchmark (bench:web)');
    for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
    console.log(
      JSON.stringify({
        bench: 'web',
        account: account.name,
        records: { spot: Number(h.spot), futures: Number(h.futures), margin: Number(h.margin), p2p: Number(h.p2p) },
        coldReadySeconds: cold.map((c) => round(c.readyMs / 1000)),
        coldFirstAnswerSeconds: cold.map((c) => round(c.firstMs / 1000)),
        coldMedianSeconds: round(coldReady.p50 / 1000),
        coldTargetSeconds: 3,
        newProcessFirstViewMs: round(newProcess.ms, 1),
        warmMs: warmQ,
        warmTargetMs: 1000,
        concurrentViews: CONCURRENT,
        concurrentViewsPerSecond: round(viewsPerSecond, 1),
        concurrentMs: concurrentQ,
        healthzMs: healthQ,
        healthzIdleMs: healthIdleQ,
        healthzTargetMs: 100,
        webCpuSeconds: round(webCpuSeconds, 2),
        webCpuCores: round(webCpuSeconds / phaseSeconds, 2),
        webCpuMsPerView: round((webCpuSeconds / concurrent.length) * 1000, 1),
        concurrentColdReadySeconds: { p50: round(coldTogether.p50 / 1000), max: round(coldTogether.max / 1000) },
        concurrentColdWalks: walks.length,
        concurrentColdComputeSeconds: computeMs.map((ms) => round(ms / 1000)),
        concurrentColdHealthzMs: healthColdQ,
        concurrentColdWebCpuSeconds: round(coldWebCpu, 2),
        loadAverage: loadavg().map((l) => round(l, 1)),
      }),
    );
  } finally {
    await stop(web);
    await stop(worker);
    // The bench's queues go with it.
    for (const name of QUEUE_NAMES) {
      const queue = new Queue(name, { prefix, connection });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await filingQueue.close();
    connection.disconnect();
    await db.end();
  }
}

if (process.argv[2] === '--worker') await workerChild();
else await main();
