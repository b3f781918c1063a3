import { describe, expect, it } from 'vitest';

import { entryTreatment } from '../../src/accounting/treatments/entry-treatment.ts';
import { LEDGERS, treatmentsOf } from '../../src/accounting/treatments/treatment-table.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { ENTRY_WALLETS } from '../../src/booking/ledger-entry.ts';
import { idPrefix } from '../../src/booking/text-safe-ids.ts';
import { GAINS_WALK_STREAMS } from '../../src/export/reports/gains-source.ts';
import { walletsOf } from '../../src/export/reports/realized-gains.ts';
import {
  historyTreatments,
  STREAM_DEFINITIONS,
  STREAMS,
  TAXED_HISTORIES,
  WALLET_LEDGERS,
  walletFacts,
} from '../../src/streams/registry.ts';

/**
 * The treatments contract of a history (issue 42 item 8; as ghostfolio's data-provider contract
 * carries its own test hook, every check iterates every provider): each history the gains walk or
 * the tax files read declares one treatment per documented type (src/streams/kit/treatments.ts), and
 * everything that names the wallets derives them from the registry. A history registered without its
 * treatments fails here, naming the history and what it lacks, instead of being walked with spot's
 * rules in silence.
 */

/** A record of the exchange's tax endpoints (`/api/v2/tax/...`) moves the account's coins: it must be treated. */
const READ_FROM_TAX_RECORDS = (stream: (typeof STREAMS)[number]) =>
  STREAM_DEFINITIONS[stream].endpoint.path.startsWith('/api/v2/tax/');

/** An entry of `wallet` with `type`, as the ledger cursor hands the walk one (ledger-entries.ts, wallet-entries.ts). */
function entryOf(stream: (typeof STREAMS)[number], type: string): LedgerEntry {
  const { wallet } = historyTreatments(stream);
  const scoped = WALLET_LEDGERS.some((w) => w === stream) || wallet === 'futures';
  return {
    atMs: 0,
    sentAmount: null,
    sentCoin: null,
    receivedAmount: null,
    receivedCoin: null,
    feeAmount: null,
    feeCoin: null,
    // The category says nothing the table does not: an unread table would fall back to it.
    category: 'unmapped',
    spotTypes: scoped ? `${type} scope` : type,
    recordIds: `${idPrefix(wallet)}1`,
    flag: null,
    wallet,
    // A futures transfer with its spot side (one without is a deposit or withdrawal: entry-treatment.ts).
    ...(wallet === 'futures' ? { pairId: 'spot:2' } : {}),
  };
}

describe('every history the walk reads declares its treatments', () => {
  it('a history of the tax records or with a wallet of its own declares treatments', () => {
    const missing = STREAMS.filter(
      (s) => (READ_FROM_TAX_RECORDS(s) || STREAM_DEFINITIONS[s].wallet !== undefined) && !TAXED_HISTORIES.includes(s),
    );
    expect(missing, `declare \`treatments\` (src/streams/kit/treatments.ts) for: ${missing.join(', ')}`).toEqual([]);
  });

  it.each(TAXED_HISTORIES)('%s: one treatment for every type its type column lists, none for another', (stream) => {
    const { typeColumn, byType } = historyTreatments(stream);
    const field = Object.values(STREAM_DEFINITIONS[stream].columns).find((f) => f.column === typeColumn);
    expect(field?.kind, `${stream}: ${typeColumn} is not a listed column`).toBe('listed');
    const listed = field?.values ?? [];
    const untreated = listed.filter((type) => !Object.hasOwn(byType, type));
    const unlisted = Object.keys(byType).filter((type) => !listed.includes(type));
    expect({ untreated, unlisted }, `${stream}: types without a treatment, or treated but not listed`).toEqual({
      untreated: [],
      unlisted: [],
    });
  });

  it.each(TAXED_HISTORIES)('%s: each entry is walked by its own wallet’s table, never spot’s', (stream) => {
    const { wallet, byType } = historyTreatments(stream);
    for (const [type, declared] of Object.entries(byType)) {
      const walked = entryTreatment(entryOf(stream, type));
      expect(`${stream} ${type}: ${walked.ledger} ${walked.kind}`).toBe(
        `${stream} ${type}: ${wallet} ${declared.kind}`,
      );
    }
  });

  it('names each wallet once, and every list of wallets is the registry’s', () => {
    const wallets = TAXED_HISTORIES.map((s) => historyTreatments(s).wallet);
    expect(new Set(wallets).size).toBe(wallets.length);
    expect(LEDGERS).toEqual(wallets);
    expect(ENTRY_WALLETS).toEqual(wallets);
    expect(GAINS_WALK_STREAMS).toEqual(TAXED_HISTORIES);
    for (const stream of WALLET_LEDGERS) expect(historyTreatments(stream).wallet).toBe(walletFacts(stream).label);
    for (const stream of TAXED_HISTORIES) {
      const { wallet, alsoIds = [] } = historyTreatments(stream);
      expect(treatmentsOf(wallet)).toBe(historyTreatments(stream).byType);
      // The gains rows' `wallet` cell names the wallet of every kind of id it declares.
      for (const kind of [wallet, ...alsoIds])
        expect(`${kind}: ${walletsOf(`${idPrefix(kind)}1`)}`).toBe(`${kind}: ${wallet}`);
    }
    // Named in the registry's order, whatever the order of the records.
    expect(
      walletsOf(
        [...wallets]
          .reverse()
          .map((w) => `${idPrefix(w)}1`)
          .join(' '),
      ),
    ).toBe(wallets.join('+'));
  });
});
