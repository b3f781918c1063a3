import { ValidationError } from '../errors/index.ts';
import { futuresLedger } from './futures-ledger/stream.ts';
import type { StreamDefinition, WalletFacts } from './kit/stream-definition.ts';
import type { HistoryTreatments } from './kit/treatments.ts';
import { marginLedger } from './margin-ledger/stream.ts';
import { p2pLedger } from './p2p-ledger/stream.ts';
import { positions } from './positions/stream.ts';
import { spot } from './spot/stream.ts';
import { transfers } from './transfers/stream.ts';

/**
 * Every history stream ledgerline keeps, by its ledger name (the
 * `sync_stream` enum of the database has the same values; a test checks it).
 * Adding a stream: its folder, its Prisma model and migration, and one line here (a history of
 * the tax records: its treatments too, kit/treatments.ts; ARCHITECTURE.md has the whole list).
 */
export const STREAM_DEFINITIONS = {
  positions,
  spot,
  transfers,
  'futures-ledger': futuresLedger,
  'margin-ledger': marginLedger,
  'p2p-ledger': p2pLedger,
} satisfies Record<string, StreamDefinition<unknown>>;

export type Stream = keyof typeof STREAM_DEFINITIONS;

export function isStream(value: string): value is Stream {
  return Object.hasOwn(STREAM_DEFINITIONS, value);
}

/** All streams, in the order they are planned and shown. */
export const STREAMS: readonly Stream[] = Object.keys(STREAM_DEFINITIONS).filter(isStream);

/**
 * The stream whose records carry a running balance (spot): reconciliation's
 * balance chain and the re-reads the other checks share are its.
 */
export const RUNNING_BALANCE_STREAM: Stream = onlyOne(STREAMS.filter((s) => STREAM_DEFINITIONS[s].runningBalance));

function onlyOne(streams: Stream[]): Stream {
  if (streams.length !== 1) throw new Error(`one stream must carry a running balance, found ${streams.length}`);
  return streams[0]!;
}

/** Each stream's name for people (the web page's timeline, the demo's summary). */
export const STREAM_TITLES: Readonly<Record<Stream, string>> = Object.fromEntries(
  STREAMS.map((s) => [s, STREAM_DEFINITIONS[s].title]),
) as Record<Stream, string>;

/** The streams that are a wallet's ledger of its own (declared with `wallet` facts): each has a reconciliation check and tax-file wallet. */
export type WalletLedger = {
  [S in Stream]: (typeof STREAM_DEFINITIONS)[S] extends { wallet: WalletFacts } ? S : never;
}[Stream];

export const WALLET_LEDGERS: readonly WalletLedger[] = STREAMS.filter(
  (s): s is WalletLedger => STREAM_DEFINITIONS[s].wallet !== undefined,
);

export function walletFacts(stream: WalletLedger): WalletFacts {
  const facts = streamDefinition(stream).wallet;
  if (!facts) throw new Error(`${stream} declares no wallet`);
  return facts;
}

/**
 * The histories whose records the gains walk and the tax files read, each by the treatments it
 * declares (kit/treatments.ts), in the registry's order: spot, the futures ledger, the wallet
 * ledgers. Every list of wallets (the entries' wallets, the ids' kinds, the gains rows' `wallet`
 * cell, the docs' treatment table) derives from it: a history registered with its treatments is in
 * all of them; test/streams/history-treatments.unit.test.ts fails for one that declares none.
 */
export const TAXED_HISTORIES: readonly Stream[] = STREAMS.filter((s) => STREAM_DEFINITIONS[s].treatments !== undefined);

export function historyTreatments(stream: Stream): HistoryTreatments {
  const treatments = streamDefinition(stream).treatments;
  if (!treatments) throw new Error(`${stream} declares no treatments`);
  return treatments;
}

/** Every wallet the taxed histories move (`spot`, `futures`, `margin`, `p2p`), in the registry's order. */
export const TAXED_WALLETS: readonly string[] = TAXED_HISTORIES.map((s) => historyTreatments(s).wallet);

/** The wallet ledgers' wallets (`margin`, `p2p`): their entries come from wallet-entries.ts, each by its facts. */
export const WALLET_LEDGER_WALLETS: readonly string[] = WALLET_LEDGERS.map((s) => walletFacts(s).label);

export function streamDefinition(stream: Stream): StreamDefinition<unknown> {
  return STREAM_DEFINITIONS[stream];
}

/** A stream chosen on the command line or in a job: one of them, or all. */
export type StreamChoice = Stream | 'all';

export function parseStreamChoice(value: string, field = '--stream'): StreamChoice {
  if (value === 'all' || isStream(value)) return value;
  throw new ValidationError(field, `must be one of ${[...STREAMS, 'all'].join(', ')}`, value);
}

export function streamsOf(choice: StreamChoice | undefined): readonly Stream[] {
  return choice === undefined || choice === 'all' ? STREAMS : [choice];
}
