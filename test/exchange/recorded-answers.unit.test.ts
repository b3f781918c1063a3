import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import type { z } from 'zod';

import { MalformedResponseError } from '../../src/exchange/errors/exchange-error.ts';
import type { ExchangeClient } from '../../src/exchange/index.ts';
import {
  batchCancelOrderData,
  batchCreateSubaccountAndApiKeyData,
  cancelSymbolOrderData,
  createSubData,
  subAccountApiKeyData,
} from '../../src/exchange/responses/account-responses.ts';
import { fundNetFlowData, openInterestLimitData } from '../../src/exchange/responses/market-responses.ts';
import { parseAnswer } from '../../src/exchange/responses/parse-answer.ts';
import { ALL_ENDPOINT_NAMES } from '../../src/streams/endpoints.ts';
import { futureRecordData } from '../../src/streams/futures-ledger/response.ts';
import { coreFields } from '../../src/streams/kit/columns.ts';
import type { Page } from '../../src/streams/kit/page-window.ts';
import { historyPositionData } from '../../src/streams/positions/response.ts';
import { STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';
import { spotRecordData } from '../../src/streams/spot/response.ts';
import { allSubDepositWithdrawalData } from '../../src/streams/transfers/response.ts';

/**
 * The corpus of answers the real exchange has been recorded or documented giving
 * (test/fixtures/exchange-answers/, origins in its SOURCES.md), fed through the schema the client
 * uses for each endpoint (the same pairs as src/exchange/exchange-client.ts).
 *
 * The table states what the parser does with each sample and the drift it counts: every sample
 * is read, or refused naming a core field of its stream (identity, money, time, paging) that it
 * lacks. Drift (a documented field absent, an unlisted one, another type) never refuses.
 */
const DATA_SCHEMAS: Record<string, z.ZodType> = {
  createVirtualSubaccountApiKey: subAccountApiKeyData,
  modifyVirtualSubaccountApiKey: subAccountApiKeyData,
  batchCreateSubaccountAndApiKey: batchCreateSubaccountAndApiKeyData,
  createSub: createSubData,
  cancelSymbolOrder: cancelSymbolOrderData,
  batchCancelOrder: batchCancelOrderData,
  historyPosition: historyPositionData,
  allSubDepositWithdrawal: allSubDepositWithdrawalData,
  spotRecord: spotRecordData,
  futureRecord: futureRecordData,
  // Every other stream's (the wallet ledgers'): its declared answer schema, from the registry.
  ...Object.fromEntries(
    STREAMS.filter((s) => !['positions', 'spot', 'transfers', 'futures-ledger'].includes(s)).map((s) => [
      STREAM_DEFINITIONS[s].endpoint.name,
      STREAM_DEFINITIONS[s].answer.schema,
    ]),
  ),
  fundNetFlow: fundNetFlowData,
  openInterestLimit: openInterestLimitData,
};

type Outcome = 'read' | `refused: ${string}`;

interface Expected {
  /** `read`, or `refused: <path>` naming the path the MalformedResponseError names. */
  outcome: Outcome;
  /** For a refusal: every field the schema found at fault (list indices dropped), sorted. */
  faultyFields?: string[];
  /** For an answer read: each drift it showed, as `<field> <kind>`, sorted. */
  drift?: string[];
}

const EXPECTED: Record<string, Expected> = {
  // posMode came into the documentation in July 2025: before, it is absent (null, counted as drift).
  'historyPosition/bitget-doc-2025-03-coincise.json': { outcome: 'read', drift: ['posMode absent'] },
  'historyPosition/bitget-doc-2025-07-coincise.json': { outcome: 'read' },
  'historyPosition/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  // No positionId: refused, naming the core field (ARCHITECTURE.md, "A position without positionId is
  // refused"); posMode, also missing, is not what refuses it. The window fails visibly (status, alert, metric).
  'historyPosition/jkorf-bitget-net-2024-06-doc-sample.json': {
    outcome: 'refused: data.list[0].positionId',
    faultyFields: ['data.list.positionId'],
  },
  // The same, in a real recorded answer (lower-case ctime/utime, 2024-07).
  'historyPosition/jkorf-bitget-net-2024-07-recorded.json': {
    outcome: 'refused: data.list[0].positionId',
    faultyFields: ['data.list.positionId'],
  },
  'historyPosition/live-call-2025-08-python-repr.json': { outcome: 'read' },

  // bizOrderId came into the sample in November 2025.
  'spotRecord/bitget-doc-2025-09-coincise.json': { outcome: 'read', drift: ['bizOrderId absent'] },
  'spotRecord/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  // futureTaxType in lower case, unlike the documented list: read, and flagged as unmapped when stored.
  'futureRecord/bitget-doc-2025-03-coincise.json': { outcome: 'read' },
  'marginRecord/bitget-doc-2025-03-coincise.json': { outcome: 'read' },
  // The quantity under `balance` (the decisions' `total`: read as its alias) and `transfer-in` with a
  // hyphen (unlisted: read, and flagged as unmapped when stored).
  'p2pRecord/bitget-doc-2025-03-coincise.json': { outcome: 'read' },

  'allSubDepositWithdrawal/bitget-doc-uta-v3-zh-page-mirror.json': { outcome: 'read' },
  'allSubDepositWithdrawal/bitget-doc-v2-broker-page-mirror.json': { outcome: 'read' },

  // `message` instead of `msg` (msg is never read on 00000), failureList items without errorCode.
  'batchCancelOrder/jkorf-bitget-net-2024-06.json': {
    outcome: 'read',
    drift: ['failureList.errorCode absent', 'message unlisted', 'msg absent'],
  },
  'batchCancelOrder/bitget-doc-2025-07-coincise.json': {
    outcome: 'read',
    drift: ['failureList.errorCode absent', 'message unlisted', 'msg absent'],
  },
  // The current documentation's sample: failureList items without errorCode.
  'batchCancelOrder/bitget-doc-2025-11-coincise.json': { outcome: 'read', drift: ['failureList.errorCode absent'] },
  // requestTime as a string (sample of the sibling futures endpoint, same data shape): read as its number.
  'batchCancelOrder/bitget-com-mix-sibling-page.json': {
    outcome: 'read',
    drift: ['failureList.errorCode absent', 'requestTime type'],
  },

  'cancelSymbolOrder/jkorf-bitget-net-2026-06.json': { outcome: 'read' },
  'createSub/bitget-doc-uta-page-mirror.json': { outcome: 'read' },
  'createVirtualSubaccountApiKey/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  'modifyVirtualSubaccountApiKey/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  'batchCreateSubaccountAndApiKey/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  'fundNetFlow/bitget-doc-2025-11-coincise.json': { outcome: 'read' },
  'openInterestLimit/jkorf-bitget-net-2026-06.json': { outcome: 'read' },
};

const CORPUS = path.resolve(import.meta.dirname, '../fixtures/exchange-answers');

function fixtureFiles(): string[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(path.join(CORPUS, dir.name))
        .filter((file) => file.endsWith('.json'))
        .map((file) => `${dir.name}/${file}`),
    )
    .sort();
}

function faultyFields(error: MalformedResponseError): string[] {
  const issues = (error.cause as z.ZodError).issues;
  const prefix = error.path.startsWith('data') ? ['data'] : [];
  const fields = issues.map((issue) =>
    [...prefix, ...issue.path.filter((key) => typeof key !== 'number').map(String)].join('.'),
  );
  return [...new Set(fields)].sort();
}

function outcomeOf(endpoint: string, body: string): Expected {
  try {
    const schema = DATA_SCHEMAS[endpoint];
    if (!schema) throw new Error(`${endpoint}: no data schema in DATA_SCHEMAS`);
    const { drift } = parseAnswer(endpoint, 200, body, schema);
    const kinds = drift.map((d) => `${d.field} ${d.kind}`).sort();
    return kinds.length === 0 ? { outcome: 'read' } : { outcome: 'read', drift: kinds };
  } catch (error) {
    if (!(error instanceof MalformedResponseError)) throw error;
    return { outcome: `refused: ${error.path}`, faultyFields: faultyFields(error) };
  }
}

describe('recorded exchange answers (corpus)', () => {
  it('the table lists every fixture, and every fixture sits under one of the endpoints', () => {
    expect(fixtureFiles()).toEqual(Object.keys(EXPECTED).sort());
    for (const file of fixtureFiles()) expect(ALL_ENDPOINT_NAMES).toContain(file.split('/')[0]);
  });

  it('has at least one sample for every endpoint', () => {
    const covered = new Set(fixtureFiles().map((file) => file.split('/')[0]));
    expect([...covered].sort()).toEqual([...ALL_ENDPOINT_NAMES].sort());
  });

  it('lists every fixture in SOURCES.md', () => {
    const sources = readFileSync(path.join(CORPUS, 'SOURCES.md'), 'utf8');
    for (const file of fixtureFiles()) expect(sources, file).toContain(file);
  });

  it('refuses a sample only for a core field of its stream', () => {
    const refused = Object.entries(EXPECTED).filter(([, expected]) => expected.outcome !== 'read');
    for (const [file, expected] of refused) {
      const stream = STREAMS.find((s) => STREAM_DEFINITIONS[s].endpoint.name === file.split('/')[0]);
      expect({ file, stream }).not.toEqual({ file, stream: undefined });
      const core = coreFields(STREAM_DEFINITIONS[stream!].columns);
      for (const field of expected.faultyFields!) expect(core).toContain(field.split('.').at(-1));
    }
  });

  it.each(Object.entries(EXPECTED))('%s: the parser gives the outcome in the table', (file, expected) => {
    const endpoint = file.split('/')[0]!;
    const body = readFileSync(path.join(CORPUS, file), 'utf8');
    expect(outcomeOf(endpoint, body)).toEqual(expected);
  });

  // The pagers too: each history sample is the first page of a window, then the exchange answers an
  // empty page; a sample read gives its records and a cursor, a refused one fails naming the field.
  const historyFixtures = Object.entries(EXPECTED).filter(([file]) =>
    STREAMS.some((stream) => STREAM_DEFINITIONS[stream].endpoint.name === file.split('/')[0]),
  );
  it.each(historyFixtures)('%s: its stream pages it to the end, or fails naming the field', async (file, expected) => {
    const endpoint = file.split('/')[0]!;
    const stream = STREAMS.find((s) => STREAM_DEFINITIONS[s].endpoint.name === endpoint)!;
    const body = readFileSync(path.join(CORPUS, file), 'utf8');
    const empty = emptied(JSON.parse(body));
    const now = Date.UTC(2026, 0, 1);
    const requests: unknown[] = [];
    const client = {
      knowsExchangeClock: true,
      now: () => now,
      call: (_endpoint: unknown, _request: unknown, response: z.ZodType, params: Record<string, unknown>) => {
        requests.push(params);
        return Promise.resolve(parseAnswer(endpoint, 200, requests.length === 1 ? body : empty, response).data);
      },
    } as unknown as ExchangeClient;
    const definition = STREAM_DEFINITIONS[stream];
    const pages: Page<unknown>[] = [];
    const read = (async () => {
      for await (const page of definition.pages(client, { start: now - DAY, end: now }, definition.scopes[0]!, null))
        pages.push(page);
    })();
    if (expected.outcome === 'read') {
      await read;
      const records = JSON.parse(body).data;
      const list: unknown[] = Array.isArray(records) ? records : records.list;
      expect(pages).toHaveLength(1);
      expect(pages[0]!.items).toHaveLength(list.length);
      expect(pages[0]!.cursor).not.toBe('');
      expect(requests).toHaveLength(2);
    } else {
      await expect(read).rejects.toThrow(MalformedResponseError);
      await expect(read).rejects.toMatchObject({ path: expected.outcome.slice('refused: '.length) });
      expect(pages).toEqual([]);
    }
  });
});

const DAY = 86_400_000;

/** The same answer with no records: what the exchange answers past a window's last page. */
function emptied(answer: { data: unknown }): string {
  const data = Array.isArray(answer.data) ? [] : { ...(answer.data as object), list: [], endId: null };
  return JSON.stringify({ ...answer, data });
}
