import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import type { z } from 'zod';

import { SPOT_TAX_TYPES as SPOT_TAX_TYPE_BOOKINGS } from '../../src/booking/spot-bookings.ts';
import { ENDPOINT_NAMES } from '../../src/exchange/endpoints.ts';
import { planWindows } from '../../src/exchange/paging/window-planner.ts';
import { fastPathOf } from '../../src/exchange/responses/parse-answer.ts';
import { collectDrift } from '../../src/exchange/responses/shape-drift.ts';
import { ALL_ENDPOINTS } from '../../src/streams/endpoints.ts';
import { type Columns, type Field, requiredByType } from '../../src/streams/kit/columns.ts';
import { type Stream, STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { SPOT_TRADE_LEG_TYPES } from '../../src/streams/spot/columns.ts';

/*
 * A stream's columns are declared once (src/streams/<name>/columns.ts); its
 * schema, record type and table spec derive from them. What cannot derive
 * from them is held to them here: the Prisma model (the table migrations
 * create) and the spot fast path (the hand-written twin of the schema).
 */

const PRISMA = readFileSync(path.resolve(import.meta.dirname, '../../prisma/schema.prisma'), 'utf8');

interface PrismaColumn {
  column: string;
  /** text, numeric, timestamptz, jsonb, uuid, text[], or an enum's database name. */
  pgType: string;
}

function block(kind: 'model' | 'enum', mappedTo: string): string {
  const blocks = [...PRISMA.matchAll(new RegExp(`^${kind} (\\w+) \\{\\n([\\s\\S]*?)^\\}`, 'gm'))];
  const found = blocks.find((b) => b[2]!.includes(`@@map("${mappedTo}")`));
  if (!found) throw new Error(`no Prisma ${kind} mapped to ${mappedTo}`);
  return found[0];
}

function enumByPrismaName(name: string): { dbName: string; values: string[] } | undefined {
  const found = PRISMA.match(new RegExp(`^enum ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm'));
  if (!found) return undefined;
  const lines = found[1]!.split('\n').map((l) => l.trim());
  const dbName = /@@map\("(\w+)"\)/.exec(found[1]!)?.[1] ?? name;
  // A value's database spelling: its @map (sync_stream's 'futures-ledger') or its name.
  const values = lines.flatMap((l) => {
    const value = /^(\w+)(?:\s+@map\("([^"]+)"\))?$/.exec(l);
    return value ? [value[2] ?? value[1]!] : [];
  });
  return { dbName, values };
}

const SCALARS: Record<string, string> = { String: 'text', Decimal: 'numeric', DateTime: 'timestamptz', Json: 'jsonb' };

function prismaColumns(table: string): Map<string, PrismaColumn & { values?: string[] }> {
  const columns = new Map<string, PrismaColumn & { values?: string[] }>();
  for (const line of block('model', table).split('\n').slice(1)) {
    const match = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
    if (!match || line.trim().startsWith('//') || line.trim().startsWith('@@')) continue;
    const [, field, type, list, , attributes] = match;
    if (/^[A-Z]/.test(type!) && !SCALARS[type!] && !enumByPrismaName(type!)) continue; // a relation
    const column = /@map\("(\w+)"\)/.exec(attributes!)?.[1] ?? field!;
    const anEnum = enumByPrismaName(type!);
    const pgType = attributes!.includes('@db.Uuid')
      ? 'uuid'
      : anEnum
        ? anEnum.dbName
        : `${SCALARS[type!]}${list ? '[]' : ''}`;
    columns.set(column, { column, pgType, ...(anEnum ? { values: anEnum.values } : {}) });
  }
  return columns;
}

/** Columns every stream table has besides the record's: who, as received, what was off, and when. */
const BOOKKEEPING = ['account_id', 'raw', 'unmapped', 'first_seen_at', 'last_changed_at'];

/** How each stream's answer carries its records: the page the schema reads, and its list (the declaration's shape). */
function answerOf(stream: Stream): {
  schema: z.ZodType;
  wrap: (items: unknown[]) => unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each stream's page has its own shape
  list: (data: any) => unknown[];
} {
  const { schema, shape } = STREAM_DEFINITIONS[stream].answer;
  return shape === 'array'
    ? { schema, wrap: (items) => items, list: (data) => data }
    : { schema, wrap: (list) => ({ list, endId: '1' }), list: (data) => data.list };
}

const ANSWERS = Object.fromEntries(STREAMS.map((s) => [s, answerOf(s)])) as Record<Stream, ReturnType<typeof answerOf>>;

const VALID: Record<Field['kind'], (field: Field) => string> = {
  id: () => 'id-7',
  decimal: () => '-0.00012000',
  'unix-ms': () => '1767225600123',
  listed: (field) => field.values?.[0] ?? 'listed',
  'optional-text': () => 'order-9',
};

/** Values each kind must refuse. */
const GARBLED: Record<Field['kind'], unknown[]> = {
  id: ['', 7, null],
  decimal: ['1e5', '', 1.5, null],
  'unix-ms': ['1767225600123.5', '-1', '', 1767225600123],
  listed: ['', 3, null],
  'optional-text': [7],
};

function validItem(columns: Columns): Record<string, unknown> {
  return Object.fromEntries(Object.entries(columns).map(([name, field]) => [name, VALID[field.kind](field)]));
}

describe('stream declarations', () => {
  it("the sync_stream enum's database values are the registry's streams", () => {
    expect(enumByPrismaName('SyncStream')).toEqual({ dbName: 'sync_stream', values: [...STREAMS] });
  });

  it('every stream declares a title of its own', () => {
    const titles = STREAMS.map((s) => STREAM_DEFINITIONS[s].title);
    expect(new Set(titles).size).toBe(STREAMS.length);
    for (const title of titles) expect(title).toMatch(/^[A-Z]/);
  });

  for (const stream of STREAMS) {
    const definition = STREAM_DEFINITIONS[stream];
    const columns = definition.columns;
    const answer = ANSWERS[stream];

    describe(stream, () => {
      it('its columns are its Prisma model, column by column, with the same Postgres types', () => {
        const model = prismaColumns(definition.table.table);
        const declared = [
          ...Object.values(columns).map((f) => ({ column: f.column, pgType: f.pgType })),
          ...(definition.scopeColumn
            ? [{ column: definition.scopeColumn.name, pgType: definition.scopeColumn.paramType }]
            : []),
        ];
        expect([...model.keys()].sort()).toEqual([...declared.map((d) => d.column), ...BOOKKEEPING].sort());
        for (const { column, pgType } of declared)
          expect({ column, pgType: model.get(column)?.pgType }).toEqual({ column, pgType });
      });

      it("its listed values stored as an enum are the enum's values (and unknown)", () => {
        const model = prismaColumns(definition.table.table);
        for (const field of Object.values(columns).filter((f) => f.kind === 'listed' && f.pgType !== 'text')) {
          expect({ column: field.column, values: model.get(field.column)?.values?.sort() }).toEqual({
            column: field.column,
            values: [...field.values!, 'unknown'].sort(),
          });
        }
      });

      it('its table spec stores every declared column, and the natural key is among them', () => {
        const names = definition.table.columns.map((c) => c.name);
        expect(names.sort()).toEqual(
          [...prismaColumns(definition.table.table).keys()].filter((c) => !c.endsWith('_at')).sort(),
        );
        for (const key of definition.table.key) expect(names).toContain(key);
      });

      it('its schema reads a valid item to the declared record, and refuses it without or with a garbled core field', () => {
        const item = validItem(columns);
        const [record] = answer.list(answer.schema.parse(answer.wrap([item])));
        expect(record).toEqual({ ...item, raw: item });
        for (const [name, field] of Object.entries(columns).filter(([, f]) => f.core)) {
          const { [name]: _dropped, ...without } = item;
          if (field.kind === 'optional-text') {
            // Left out, core optional text is the exchange's own "none" (''), noted as drift.
            const absent = collectDrift(() => answer.list(answer.schema.parse(answer.wrap([without]))));
            expect(absent.value[0]).toEqual({ ...item, [name]: '', raw: without });
            expect(absent.drift).toEqual([{ field: name, kind: 'absent', count: 1 }]);
          } else {
            expect({ name, parsed: answer.schema.safeParse(answer.wrap([without])).success }).toEqual({
              name,
              parsed: false,
            });
          }
          for (const garbled of GARBLED[field.kind]) {
            const bad = { ...item, [name]: garbled };
            expect({ name, garbled, parsed: answer.schema.safeParse(answer.wrap([bad])).success }).toEqual({
              name,
              garbled,
              parsed: false,
            });
          }
        }
      });

      it('reads a non-core field absent or garbled as null (optional text: empty), noting drift; keeps an unlisted field in raw, noting it', () => {
        const item = validItem(columns);
        for (const [name, field] of Object.entries(columns).filter(([, f]) => !f.core)) {
          const none = field.kind === 'optional-text' ? '' : null;
          const { [name]: _dropped, ...without } = item;
          const absent = collectDrift(() => answer.list(answer.schema.parse(answer.wrap([without]))));
          expect(absent.value[0]).toEqual({ ...item, [name]: none, raw: without });
          expect(absent.drift).toEqual([{ field: name, kind: 'absent', count: 1 }]);
          const garbled = collectDrift(() => answer.list(answer.schema.parse(answer.wrap([{ ...item, [name]: 7 }]))));
          expect(garbled.value[0]).toMatchObject({ [name]: none });
          expect(garbled.drift).toEqual([{ field: name, kind: 'type', count: 1 }]);
        }
        const extra = { ...item, leverage: '10', achievedProfits: null };
        const unlisted = collectDrift(() => answer.list(answer.schema.parse(answer.wrap([extra, extra]))));
        expect(unlisted.value[0]).toEqual({ ...item, raw: extra });
        expect(unlisted.drift).toEqual([
          { field: 'leverage', kind: 'unlisted', count: 2 },
          { field: 'achievedProfits', kind: 'unlisted', count: 2 },
        ]);
      });

      it('its fast path, if any, returns what the schema returns and refuses what the schema refuses', () => {
        const fast = fastPathOf(answer.schema);
        if (stream === 'spot') expect(fast).toBeDefined();
        if (!fast) return;
        const item = validItem(columns);
        // The fast path may leave an item to the schema (a drifting shape: the schema counts the
        // drift), but never reads one otherwise than the schema, nor reads one the schema refuses.
        const check = (data: unknown, label: string): void => {
          const schema = answer.schema.safeParse(data);
          const quick = fast(data);
          if (schema.success && quick !== undefined) expect({ label, quick }).toEqual({ label, quick: schema.data });
          else if (!schema.success) expect({ label, quick }).toEqual({ label, quick: undefined });
        };
        check(answer.wrap([item]), 'valid');
        expect(fast(answer.wrap([item]))).toBeDefined();
        expect(fast(answer.wrap([{ ...item, unlisted: '1' }]))).toBeUndefined();
        for (const [name, field] of Object.entries(columns)) {
          const { [name]: _dropped, ...without } = item;
          check(answer.wrap([without]), `without ${name}`);
          check(answer.wrap([{ ...item, [name]: null }]), `${name} null`);
          for (const garbled of GARBLED[field.kind])
            check(answer.wrap([{ ...item, [name]: garbled }]), `${name} ${String(garbled)}`);
        }
        // A core field the fast path let through garbled would read here: each must be refused by both.
        for (const [name, field] of Object.entries(columns).filter(([, f]) => f.core)) {
          for (const garbled of GARBLED[field.kind]) {
            expect({ name, garbled, quick: fast(answer.wrap([{ ...item, [name]: garbled }])) }).toEqual({
              name,
              garbled,
              quick: undefined,
            });
          }
        }
      });
    });
  }
});

/*
 * A history stream is self-sufficient: its endpoint (path, rate budget, request rules, span,
 * horizon, page size) is declared in its folder, and src/exchange stays generic. A 4th stream
 * is then its folder and a registry line, and nothing in src/exchange.
 */
const EXCHANGE_DIR = path.resolve(import.meta.dirname, '../../src/exchange');
const DAY_MS = 86_400_000;

function exchangeSources(dir = EXCHANGE_DIR): { file: string; code: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return exchangeSources(full);
    if (!entry.name.endsWith('.ts')) return [];
    // Comments may cite a stream as an example; the code may not name one.
    const code = readFileSync(full, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:])\/\/.*$/gm, '$1');
    return [{ file: path.relative(EXCHANGE_DIR, full), code }];
  });
}

describe('each history stream declares its own endpoint; src/exchange names none of them', () => {
  it.each(STREAMS)('%s: src/exchange has no code naming its endpoint, path or table', (stream) => {
    const definition = STREAM_DEFINITIONS[stream];
    const { name, path: endpointPath } = definition.endpoint;
    const names = [name, endpointPath, endpointPath.slice(endpointPath.lastIndexOf('/') + 1), definition.table.table];
    const found = exchangeSources().flatMap(({ file, code }) =>
      names
        .filter((text) => new RegExp(`\\b${text.replace(/[/-]/g, '\\$&')}\\b`).test(code))
        .map((t) => `${file}: ${t}`),
    );
    expect(found).toEqual([]);
  });

  it.each(STREAMS)(
    '%s: declares path, rate budget, span, page size and request rules the planner and client use',
    (stream) => {
      const definition = STREAM_DEFINITIONS[stream];
      const endpoint = definition.endpoint;
      expect(endpoint.path).toMatch(/^\/api\/v\d\/[a-z0-9/-]+$/);
      expect(endpoint.method).toBe('GET');
      expect(Number.isInteger(endpoint.perSecond) && endpoint.perSecond > 0).toBe(true);
      expect(['uid', 'ip']).toContain(endpoint.keyedBy);
      expect(Number.isInteger(endpoint.maxSpanDays) && endpoint.maxSpanDays > 0).toBe(true);
      expect(Number.isInteger(endpoint.pageLimit) && endpoint.pageLimit > 0).toBe(true);
      // The horizon a plan and a check read is the one the endpoint declares.
      expect(definition.horizon?.days).toBe(endpoint.horizonDays);
      expect(ALL_ENDPOINTS).toContain(endpoint);

      const now = Date.UTC(2026, 0, 1);
      const request = endpoint.request(() => now);
      const range = (days: number) => ({ startTime: String(now - days * DAY_MS), endTime: String(now) });
      expect(request.safeParse({ ...range(endpoint.maxSpanDays), limit: endpoint.pageLimit }).success).toBe(true);
      expect(request.safeParse({ limit: endpoint.pageLimit + 1 }).success).toBe(false);
      expect(request.safeParse(range(endpoint.maxSpanDays + 1)).success).toBe(false);

      // The planner needs nothing but the declaration.
      const windows = planWindows(endpoint, now - 3 * endpoint.maxSpanDays * DAY_MS, now, { now });
      expect(windows.length).toBeGreaterThan(0);
      for (const window of windows)
        expect(window.end - window.start).toBeLessThanOrEqual(endpoint.maxSpanDays * DAY_MS);
    },
  );

  it("every endpoint is named and reached once, the core ones and the streams'", () => {
    const names = ALL_ENDPOINTS.map((endpoint) => endpoint.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(ALL_ENDPOINTS.map((endpoint) => endpoint.path)).size).toBe(names.length);
    expect(names).toHaveLength(ENDPOINT_NAMES.length + STREAMS.length);
  });
});

describe('fields required by record type (issue 43)', () => {
  it("spot's trade legs that need an order id are exactly the booking's trade category", () => {
    const trade = Object.entries(SPOT_TAX_TYPE_BOOKINGS)
      .filter(([, mapping]) => mapping.category === 'trade')
      .map(([type]) => type);
    expect([...SPOT_TRADE_LEG_TYPES].sort()).toEqual(trade.sort());
  });

  it('every rule names a type field of its own columns and values that field lists', () => {
    for (const stream of STREAMS) {
      const columns = STREAM_DEFINITIONS[stream].columns;
      for (const [field, rule] of requiredByType(columns)) {
        const type = columns[rule.type];
        expect(type, `${stream}.${field}: ${rule.type}`).toBeDefined();
        const listed = new Set((type!.values ?? []).map((v) => v.toUpperCase()));
        for (const value of rule.values)
          expect(listed.has(value.toUpperCase()), `${stream}.${field}: ${value}`).toBe(true);
      }
    }
  });
});
