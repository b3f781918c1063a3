import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { Ajv } from 'ajv';
import { parse } from 'yaml';

/*
 * What docker-compose.yml must hold (issue 17), checked without a Docker engine: the compose
 * specification's JSON schema (as dclint ships it), then ledgerline's own rules. Each rule returns
 * the problems it finds, so the test can show every rule firing on the file as it was before.
 */

export interface ComposeFile {
  services: Record<string, Service>;
  [key: string]: unknown;
}

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string> | string[];
  env_file?: unknown;
  ports?: (string | { host_ip?: string; published?: string | number; target?: number })[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: Record<string, { condition?: string }> | string[];
  profiles?: string[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  network_mode?: string;
  restart?: string;
}

/** The host ports a developer's own services take (Postgres, Redis, `ledgerline web`, the worker's metrics). */
export const LOCAL_PORTS = [5432, 6379, 8080, 9464];
export const APP_SERVICES = ['migrate', 'worker', 'web'];
const SECRETS = ['LEDGERLINE_MASTER_KEY', 'LEDGERLINE_WEB_TOKEN', 'LEDGERLINE_ADMIN_TOKEN', 'ALERT_WEBHOOK_URL'];

/** `${NAME:-default}` as compose reads it with NAME unset; `${NAME}` and `${NAME:?message}` become ''. */
function interpolateDefaults(text: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*)|:?\?[^}]*)?\}/g, (_match, _name, fallback) =>
    typeof fallback === 'string' ? fallback : '',
  );
}

export function readCompose(file: string): ComposeFile {
  return parse(interpolateDefaults(readFileSync(file, 'utf8')), { merge: true }) as ComposeFile;
}

/** Errors of the compose specification's JSON schema, one line each. */
export function schemaErrors(doc: unknown): string[] {
  const require = createRequire(import.meta.url);
  const schemaFile = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas/compose.schema.json');
  // The file names draft-07 by an address Ajv does not know (https, no #); Ajv's default is draft-07.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

export function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => [entry.split('=')[0]!, entry.split('=').slice(1).join('=')]));
}

function testText(service: Service): string {
  const test = service.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : (test ?? '');
}

function conditionOf(service: Service, dependency: string): string | undefined {
  const deps = service.depends_on;
  if (!deps) return undefined;
  if (Array.isArray(deps)) return deps.includes(dependency) ? 'service_started' : undefined;
  return deps[dependency] ? (deps[dependency].condition ?? 'service_started') : undefined;
}

/** A published port as [host address, host port]; an address left out means every interface. */
function published(port: NonNullable<Service['ports']>[number]): [string, number] | undefined {
  if (typeof port !== 'string') {
    return port.published === undefined ? undefined : [port.host_ip ?? '0.0.0.0', Number(port.published)];
  }
  const parts = port.replace(/\/(tcp|udp)$/, '').split(':');
  if (parts.length === 1) return undefined; // container port only: a random host port on every interface
  if (parts.length === 2) return ['0.0.0.0', Number(parts[0])];
  return [
    parts
      .slice(0, -2)
      .join(':')
      .replace(/^\[|\]$/g, ''),
    Number(parts.at(-2)),
  ];
}

export type Rule = (doc: ComposeFile) => string[];

export const RULES: Record<string, Rule> = {
  'postgres healthcheck over TCP': ({ services }) => {
    const text = testText(services.postgres ?? {});
    return /pg_isready/.test(text) && /-h\s+127\.0\.0\.1/.test(text) ? [] : [`postgres healthcheck is "${text}"`];
  },
  'redis healthcheck': ({ services }) => (/redis-cli.*ping/.test(testText(services.redis ?? {})) ? [] : ['redis']),
  'migrate retries and runs once': ({ services }) => {
    const migrate = services.migrate ?? {};
    const run = [...(migrate.entrypoint ?? []), ...(migrate.command ?? [])].join(' ');
    const problems: string[] = [];
    if (!run.includes('scripts/migrate-when-ready.sh')) problems.push(`migrate runs "${run}", which does not retry`);
    if (migrate.restart !== 'no') problems.push(`migrate restart is ${migrate.restart ?? 'unset'}`);
    if (conditionOf(migrate, 'postgres') !== 'service_healthy') problems.push('migrate does not wait for postgres');
    return problems;
  },
  'worker and web wait for migrate and redis': ({ services }) =>
    ['worker', 'web'].flatMap((name) => {
      const service = services[name] ?? {};
      const problems: string[] = [];
      if (conditionOf(service, 'migrate') !== 'service_completed_successfully') problems.push(`${name}: migrate`);
      if (conditionOf(service, 'redis') !== 'service_healthy') problems.push(`${name}: redis`);
      return problems;
    }),
  'one image for every ledgerline service': ({ services }) => {
    const names = [...APP_SERVICES, 'simulator'];
    const images = new Set(names.map((name) => services[name]?.image));
    const builds = new Set(names.map((name) => JSON.stringify(services[name]?.build ?? null)));
    const problems: string[] = [];
    if (images.size !== 1 || images.has(undefined)) problems.push(`images: ${[...images].join(', ')}`);
    if (builds.size !== 1) problems.push(`${builds.size} different build definitions`);
    const dockerfile =
      (services.worker?.build as { dockerfile?: string; dockerfile_inline?: string } | undefined) ?? {};
    if (dockerfile.dockerfile_inline !== undefined || dockerfile.dockerfile !== 'Dockerfile')
      problems.push('the image is not built from ./Dockerfile');
    return problems;
  },
  'worker and web healthchecks probe /readyz on their own ports': ({ services }) => {
    const worker = services.worker ?? {};
    const web = services.web ?? {};
    const metricsPort = environmentOf(worker).METRICS_PORT ?? '9464';
    const webPort = environmentOf(web).WEB_PORT ?? '8080';
    const problems: string[] = [];
    if (!testText(worker).includes(`127.0.0.1:${metricsPort}/readyz`)) problems.push(`worker: "${testText(worker)}"`);
    if (!testText(web).includes(`127.0.0.1:${webPort}/readyz`)) problems.push(`web: "${testText(web)}"`);
    return problems;
  },
  'simulator behind a profile, with a network of its own': ({ services }) => {
    const problems: string[] = [];
    if (!services.simulator?.profiles?.length) problems.push('the simulator starts by default');
    for (const [name, service] of Object.entries(services)) {
      if (service.network_mode?.startsWith('service:')) problems.push(`${name} uses ${service.network_mode}`);
    }
    for (const name of [...APP_SERVICES, 'postgres', 'redis']) {
      if (services[name]?.profiles?.length) problems.push(`${name} needs a profile to start`);
    }
    return problems;
  },
  'ports only on loopback, clear of local services': ({ services }) =>
    Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).flatMap((port) => {
        const host = published(port);
        if (!host) return [`${name}: ${JSON.stringify(port)} publishes on every interface`];
        const problems: string[] = [];
        if (host[0] !== '127.0.0.1' && host[0] !== '::1') problems.push(`${name}: published on ${host[0]}`);
        if (LOCAL_PORTS.includes(host[1])) problems.push(`${name}: host port ${host[1]} clashes with a local service`);
        return problems;
      }),
    ),
  'secrets only through env_file': ({ services }) =>
    APP_SERVICES.flatMap((name) => {
      const service = services[name] ?? {};
      const env = environmentOf(service);
      const problems = SECRETS.filter((key) => key in env).map((key) => `${name}: ${key} in environment`);
      if (service.env_file === undefined) problems.push(`${name}: no env_file`);
      return problems;
    }),
};

export function ruleProblems(doc: ComposeFile): Record<string, string[]> {
  return Object.fromEntries(Object.entries(RULES).map(([name, rule]) => [name, rule(doc)]));
}
