import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseCliOptions } from '../../src/simulator/cli-options.ts';
import { APP_SERVICES, environmentOf, readCompose, ruleProblems, RULES, schemaErrors } from './compose-rules.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const compose = () => readCompose(path.join(ROOT, 'docker-compose.yml'));
// The compose file as it was before issue 17: every rule must fire on it, or the rule checks nothing.
const before = () => readCompose(path.join(import.meta.dirname, 'fixtures/compose-before-issue-17.yml'));

/** The Dockerfile's instructions, continuation lines joined, comments dropped, split into stages. */
function dockerfileStages(): { from: string; name: string | undefined; lines: string[] }[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const args = Object.fromEntries(
    lines.flatMap((line) => {
      const match = /^ARG\s+(\w+)=(\S+)/.exec(line);
      return match ? [[match[1]!, match[2]!]] : [];
    }),
  );
  const stages: { from: string; name: string | undefined; lines: string[] }[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      const image = from[1]!.replace(/\$\{(\w+)\}/g, (_m, name: string) => args[name] ?? '');
      stages.push({ from: image, name: from[2], lines: [] });
    } else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

describe('docker-compose.yml', () => {
  it('is valid against the compose specification schema', () => {
    expect(schemaErrors(compose())).toEqual([]);
  });

  it('the schema check itself rejects a malformed file', () => {
    const broken = structuredClone(compose());
    (broken.services.worker as Record<string, unknown>).depends_on = { migrate: { condition: 'when_ready' } };
    (broken.services.web as Record<string, unknown>).healthcheck = { test: 42 };
    expect(schemaErrors(broken).length).toBeGreaterThan(0);
  });

  it('keeps every rule of issue 17', () => {
    expect(ruleProblems(compose())).toEqual(Object.fromEntries(Object.keys(RULES).map((name) => [name, []])));
  });

  it('every rule the old file broke fires on it', () => {
    // These two it already kept; every other rule is one issue 17 asked for.
    const heldBefore = ['redis healthcheck', 'worker and web wait for migrate and redis'];
    const problems = ruleProblems(before());
    for (const [rule, found] of Object.entries(problems)) {
      if (heldBefore.includes(rule)) expect(found, rule).toEqual([]);
      else expect(found, rule).not.toEqual([]);
    }
  });

  it('the services and the scripts they run exist', () => {
    const { services } = compose();
    expect(Object.keys(services).sort()).toEqual(['migrate', 'postgres', 'redis', 'simulator', 'web', 'worker']);
    for (const script of ['scripts/migrate-when-ready.sh', 'scripts/probe.js', 'bin/ledgerline.js']) {
      expect(() => readFileSync(path.join(ROOT, script)), script).not.toThrow();
    }
    // The simulator runs compiled: the path the image holds (tsconfig.build.json's outDir, rootDir .).
    expect(services.simulator!.entrypoint).toEqual(['node', 'dist/src/simulator/main.js']);
  });
});

// Issue 28: what a reader of the compose file and its page met.
describe('docker-compose.yml, as an operator meets it', () => {
  /** The page that documents the compose file (moved out of the README). */
  const composePage = () => {
    const file = path.join(ROOT, 'docs/docker-compose.md');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };

  it('a METRICS_HOST set in .env reaches the worker: the compose environment sets only what must differ in a container', () => {
    const { services } = compose();
    // Compose gives `environment` precedence over `env_file`: a key set there can never come from .env.
    const dotenv = { METRICS_HOST: '0.0.0.0', LOG_LEVEL: 'debug' };
    expect({ ...dotenv, ...environmentOf(services.worker!) }).toMatchObject(dotenv);
    const containerOnly = [
      'NODE_ENV',
      'DATABASE_URL',
      'REDIS_URL',
      'EXPORT_DIR',
      'WEB_HOST',
      'WEB_PORT',
      'METRICS_PORT',
    ];
    for (const name of APP_SERVICES) {
      expect(
        Object.keys(environmentOf(services[name]!)).filter((key) => !containerOnly.includes(key)),
        name,
      ).toEqual([]);
    }
  });

  it('states the Compose version its env_file entries need (path and required: Compose 2.24)', () => {
    const { services } = compose();
    const optional = APP_SERVICES.filter((name) =>
      JSON.stringify(services[name]!.env_file ?? null).includes('"required"'),
    );
    // Without such an entry this test would check nothing.
    expect(optional).toEqual(APP_SERVICES);
    const header = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8').split('\n\n')[0]!;
    expect(header).toMatch(/Compose 2\.24 or later/);
    expect(composePage()).toMatch(/Compose 2\.24 or later/);
  });

  it("the demo profile's simulator keeps one history across restarts: anchored by a file on a volume, its demo key bound to the worker", () => {
    const doc = compose();
    const simulator = doc.services.simulator!;
    // The simulator's own parser: an option it does not know fails here, as it would in the container.
    const options = parseCliOptions(['node', 'main.js', ...(simulator.command ?? [])], false);
    expect(options.anchor, '--anchor: a fixed instant, or one that moves with the day (today)').toBeUndefined();
    expect(options.anchorFile ?? '', 'the simulator runs with --anchor-file <absolute path>').toMatch(/^\//);
    const mounts = (simulator.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume.split(':') : []));
    const mount = mounts.find(([, target]) => target && options.anchorFile!.startsWith(`${target}/`));
    expect(mount, `a volume holds ${options.anchorFile}`).toBeDefined();
    expect(Object.keys((doc.volumes ?? {}) as Record<string, unknown>)).toContain(mount![0]);
    // The image creates that directory for its unprivileged user, or a new volume is root's.
    const runtime = dockerfileStages().at(-1)!;
    const target = mount![1]!;
    expect(
      runtime.lines.some(
        (line) => /^RUN mkdir -p\b/.test(line) && line.includes(target) && /chown node:node\b/.test(line),
      ),
    ).toBe(true);
    const networks = doc.services.worker!.networks as Record<string, { ipv4_address?: string }>;
    expect(options.demoIps).toEqual([networks.ledgerline!.ipv4_address]);
  });
});

describe('Dockerfile', () => {
  const stages = dockerfileStages();
  const runtime = stages.at(-1)!;

  it('builds on the Node 22 official image in every stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.from).toMatch(/^node:22(-[a-z0-9-]+)?$/);
  });

  it('installs with npm ci, and the runtime without dev dependencies', () => {
    const runs = stages.flatMap((stage) => stage.lines.filter((line) => line.startsWith('RUN ')));
    expect(runs.some((line) => /npm ci\b(?!.*--omit=dev)/.test(line))).toBe(true);
    expect(runs.some((line) => /npm ci\b.*--omit=dev/.test(line))).toBe(true);
    expect(runs.some((line) => /npm install\b/.test(line))).toBe(false);
    // The runtime's node_modules are the --omit=dev ones, never the build stage's.
    const copies = runtime.lines.filter((line) => line.startsWith('COPY --from=') && line.includes('node_modules'));
    const prodStage = stages.find((stage) => stage.lines.some((line) => /npm ci\b.*--omit=dev/.test(line)));
    expect(copies.length).toBe(1);
    expect(copies[0]).toContain(`--from=${prodStage?.name}`);
  });

  it('runs compiled, as a non-root user, in production mode, with a healthcheck', () => {
    const users = runtime.lines.filter((line) => line.startsWith('USER '));
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER\s+(root|0)(:|$)/);
    expect(runtime.lines.some((line) => /^ENV\b.*NODE_ENV=production/.test(line))).toBe(true);
    expect(runtime.lines.some((line) => line.startsWith('HEALTHCHECK'))).toBe(true);
    expect(runtime.lines.some((line) => /COPY --from=\S+ \/app\/dist/.test(line))).toBe(true);
    // No sources in the runtime image: bin/ledgerline.js then runs dist/, never tsx.
    expect(runtime.lines.some((line) => /^COPY\s+src\b/.test(line))).toBe(false);
  });

  it('.dockerignore keeps installed trees, history, local data and secrets out of the build context', () => {
    const entries = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git', '.env', '.env.*', 'exports', 'test-artifacts']) {
      expect(entries, entry).toContain(entry);
    }
  });
});
