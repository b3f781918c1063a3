import { insertAccount, insertFuturesLedger, insertPositions, insertSpot, insertTransfers } from './seed.ts';
import { insertMarginLedger, insertP2pLedger } from './seed-wallet-ledgers.ts';

/**
 * An account whose every history holds every cell that COPY's CSV and the Node encoder could
 * write differently (copy-path.test.ts): separators, quotes, line breaks, formulas (also behind
 * leading white space and in full-width forms), signed and special amounts, unlisted types.
 */
export const NASTY = [
  'a,b',
  'say "hi"',
  '"',
  ',',
  'line1\nline2',
  'cr\ronly',
  'crlf\r\nend',
  '=SUM(A1:A9)',
  '+1',
  '-2',
  '-3.5',
  '@cmd',
  '\tTab',
  '\rCR first',
  '\uFF1Dfull',
  '\uFF0B1',
  '\uFF0D2',
  '\uFF20at',
  '',
  'héllo ✓ 日本語 🚀',
  '\\.',
  '\\',
  "'already",
  ' lead and trail ',
  '"=quoted,formula"',
  ' =1+1',
  '  +cmd',
  '\u00A0@x',
  '\u3000=1',
  ' \t=x',
  ' -4.5',
];
export const AMOUNTS = [
  '-1.5',
  '2',
  '0.00000001',
  '-0',
  'NaN',
  '-Infinity',
  'Infinity',
  '1000000000000.123456789',
  '-7',
];

/** The account's name: a CSV cell and a formula too. */
export const ACCOUNT_NAME = 'copy, "nasty" =name';

/** Writes the account and its histories (an hour apart from 2026-03-01) into the database; returns its id. */
export async function insertNastyAccount(url: string): Promise<string> {
  const ts = (i: number) => Date.UTC(2026, 2, 1) + i * 3_600_000;
  const accountId = await insertAccount(url, ACCOUNT_NAME);
  const types = ['Buy', 'Sell', 'Deposit', 'Transfer in', 'Judicial recall', 'No such type, "x"', '=Evil'];
  await insertSpot(
    url,
    accountId,
    NASTY.flatMap((text, i) => [
      {
        recordId: `r${i}-${text}`,
        coin: text,
        spotTaxType: types[i % types.length]!,
        amount: AMOUNTS[i % AMOUNTS.length]!,
        fee: i % 3 === 0 ? '-0.001' : '0',
        balance: AMOUNTS[(i + 3) % AMOUNTS.length]!,
        // Pairs of legs share an order id; every seventh order has one leg only (unpaired).
        bizOrderId: text === '' ? '' : `o${Math.floor(i / 2)}${text}`,
        ts: ts(i),
        unmapped: i % 4 === 0 ? [text, 'x,"y"'] : [],
      },
      {
        recordId: `s${i}`,
        coin: i % 2 ? 'USDT' : text,
        spotTaxType: types[(i + 1) % types.length]!,
        amount: AMOUNTS[(i + 1) % AMOUNTS.length]!,
        bizOrderId: i % 7 === 0 ? `lone${i}` : `o${Math.floor(i / 2)}${text}`,
        ts: ts(i),
      },
    ]),
  );
  await insertPositions(
    url,
    accountId,
    NASTY.map((text, i) => ({
      positionId: `p${i}${text}`,
      symbol: `${text}USDT`,
      marginCoin: text,
      holdSide: i % 3 === 0 ? text : 'short',
      marginMode: i % 5 === 0 ? text : 'crossed',
      pnl: AMOUNTS[i % AMOUNTS.length]!,
      totalFunding: AMOUNTS[(i + 2) % AMOUNTS.length]!,
      cTime: ts(i),
      uTime: ts(i) + 60_000,
      raw: { holdSide: text, marginMode: text },
      unmapped: i % 4 === 1 ? ['holdSide', text] : [],
    })),
  );
  await insertTransfers(
    url,
    accountId,
    NASTY.map((text, i) => ({
      txId: `t${i}${text}`,
      type: i % 2 ? 'withdrawal' : 'deposit',
      subUid: text,
      coin: text,
      subType: i % 3 ? 'onchain' : text,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      status: i % 5 === 0 ? text : 'success',
      ts: ts(i),
      raw: { subType: text, status: text },
    })),
  );
  const futuresTypes = [
    'TRANSFER_IN',
    'CLOSE_LONG',
    'OPEN_SHORT',
    'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
    'No such type, "x"',
    '=Evil',
  ];
  await insertFuturesLedger(
    url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `f${i}${text}`,
      symbol: i % 2 ? `${text}USDT` : '',
      marginCoin: text,
      futureTaxType: futuresTypes[i % futuresTypes.length]!,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      fee: i % 3 === 0 ? '-0.001' : '0',
      ts: ts(i),
      unmapped: i % 4 === 2 ? ['futureTaxType', text] : [],
    })),
  );
  // The wallet ledgers: listed and unlisted types, both margin scopes, the nasty text in every text column.
  const marginTypes = ['transfer_in', 'deal_out', 'confiscated', 'No such type, "x"', '=Evil'];
  await insertMarginLedger(
    url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `m${i}${text}`,
      marginType: i % 2 ? 'isolated' : 'crossed',
      coin: text,
      symbol: i % 2 ? `${text}USDT` : '',
      marginTaxType: i % 3 === 0 ? text : marginTypes[i % marginTypes.length]!,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      fee: i % 3 === 0 ? '-0.001' : '0',
      total: AMOUNTS[(i + 4) % AMOUNTS.length]!,
      ts: ts(i),
      unmapped: i % 4 === 3 ? ['marginTaxType', text] : [],
    })),
  );
  const p2pTypes = ['buy', 'sell', 'transfer_out', 'No such type, "x"', '=Evil'];
  await insertP2pLedger(
    url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `q${i}${text}`,
      coin: text,
      p2pTaxType: i % 3 === 0 ? text : p2pTypes[i % p2pTypes.length]!,
      total: AMOUNTS[i % AMOUNTS.length]!,
      ts: ts(i),
      unmapped: i % 4 === 0 ? ['p2pTaxType', text] : [],
    })),
  );
  return accountId;
}
