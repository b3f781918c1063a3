import { LEDGERS } from './treatment-table.ts';

/**
 * Under which head of each jurisdiction's income tax each kind of income the walk finds falls
 * (docs/reports.md, "Income: heads"), with the rule it follows and whether the rules leave it to
 * the facts (`review`: the record does not show what the head turns on, so an accountant decides).
 *
 * `taxable`: whether the head is income at all. The lots keep the value at receipt as their cost
 * either way (what the walk does is unchanged); a receipt whose head is not income is counted apart
 * from the income totals (income-summary, the `anlage-so` row's `other_income`), never in them.
 *
 * Sources: HMRC Cryptoassets Manual CRYPTO21200 (tokens received from an employer, for services or
 * as mining/staking rewards: income), CRYPTO21250 (airdrops: income only if received in return for
 * or in expectation of a service; else no income tax, CGT on disposal), CRYPTO61200 ff. (lending
 * and staking returns: capital or revenue on the facts), ITTOIA05 s687 (miscellaneous income),
 * TCGA92 s51(1) (winnings from lotteries and games with prizes are not chargeable gains), TCGA92
 * s143 (futures); BMF 10.5.2022 / 6.3.2025 Rz. 29 (airdrop), Rz. 70 f. (an airdrop for a service:
 * §22 Nr. 3 EStG; chance deciding who receives breaks the link to any service: no §22 Nr. 3),
 * Rz. 65 (lending: §22 Nr. 3), EStG §22 Nr. 3 (income from services), §20 (2) Satz 1 Nr. 3
 * (Termingeschäfte), §23 (private sales).
 */
export interface IncomeHead {
  /** The head in a few words, as the files show it. */
  readonly head: string;
  /** The rule it follows. */
  readonly source: string;
  /** Income under this head (false: no income tax charge; the value is kept apart). */
  readonly taxable: boolean;
  /** The head turns on facts the record does not show: flagged `review:income-head`. */
  readonly review: boolean;
}

export interface IncomeHeads {
  readonly uk: IncomeHead;
  readonly de: IncomeHead;
}

const h = (head: string, source: string, taxable: boolean, review: boolean): IncomeHead => ({
  head,
  source,
  taxable,
  review,
});

const REFERRAL: IncomeHeads = {
  uk: h(
    'miscellaneous income',
    'CRYPTO21200 (tokens for a service: introducing customers); ITTOIA05 s687',
    true,
    false,
  ),
  de: h('§22 Nr. 3 EStG', 'EStG §22 Nr. 3 (occasional brokering, a service)', true, false),
};
const PROMOTION: IncomeHeads = {
  uk: h(
    'miscellaneous income if for a service, else none',
    'CRYPTO21250: income only if received for or in expectation of a service',
    true,
    true,
  ),
  de: h(
    '§22 Nr. 3 EStG if for a service, else none',
    'BMF 10.5.2022/6.3.2025 Rz. 70 f.: §22 Nr. 3 only for a service (data, tasks)',
    true,
    true,
  ),
};
const RETURN: IncomeHeads = {
  uk: h(
    'miscellaneous income (or capital, on the terms)',
    'CRYPTO61200 ff.: a lending or staking return is revenue or capital on the facts',
    true,
    true,
  ),
  de: h('§22 Nr. 3 EStG', 'BMF 10.5.2022/6.3.2025 Rz. 65 (lending), staking likewise: §22 Nr. 3', true, false),
};

/** Spot's income types (treatment-table.ts, kind `income`) and the margin account's. */
const HEADS: Readonly<Record<string, IncomeHeads>> = {
  "spot:Strategic Income-Traders' accounts": {
    uk: h('miscellaneous income (or trading)', 'CRYPTO21200: tokens for a service (trading for copiers)', true, false),
    de: h(
      '§22 Nr. 3 EStG (or §15 if a business)',
      'EStG §22 Nr. 3: a profit share for a service; §15 if carried on as a business',
      true,
      true,
    ),
  },
  'spot:Crypto Voucher Distribution': PROMOTION,
  'spot:Copy Trade profit': {
    uk: h(
      'not income: the result of the copier’s own trades (futures: capital or income, the accountant’s call)',
      'TCGA92 s143 (futures), CRYPTO22100; not a receipt for a service',
      false,
      true,
    ),
    de: h(
      'not §22 Nr. 3: the copier’s own trades (futures: §20 (2) Satz 1 Nr. 3 Termingeschäft; spot: §23)',
      'EStG §20 (2) Satz 1 Nr. 3, §23; not a service of the copier',
      false,
      true,
    ),
  },
  'spot:Airdrop Reward-B': PROMOTION,
  'spot:Airdrop Reward-A': PROMOTION,
  'spot:Lotto rewards': {
    uk: h(
      'not income: a prize of chance',
      'TCGA92 s51(1): winnings from lotteries and games with prizes are not chargeable gains; no income charge',
      false,
      true,
    ),
    de: h(
      'not income: chance decides',
      'BMF 10.5.2022/6.3.2025 Rz. 70 f.: chance deciding who receives breaks the link to a service (no §22 Nr. 3)',
      false,
      true,
    ),
  },
  'spot:User contract trial fund': PROMOTION,
  'spot:Rebate rewards': REFERRAL,
  'spot:Channel referral rewards': REFERRAL,
  'spot:Gains': RETURN,
  'spot:Interest': RETURN,
  'spot:Activity fund(USDT-Ⓜ)': PROMOTION,
  'spot:Activity fund': PROMOTION,
  'spot:Activity fund(Coin-Ⓜ)': PROMOTION,
  'spot:Activity issuance': PROMOTION,
  'margin:system_fee_in': {
    uk: h('miscellaneous income (reason not stated)', 'CRYPTO21200', true, true),
    de: h('§22 Nr. 3 EStG (reason not stated)', 'EStG §22 Nr. 3', true, true),
  },
};

/** Income of a type no entry names (a type the exchange adds): income at receipt, for review. */
export const UNKNOWN_INCOME_HEAD: IncomeHeads = {
  uk: h('miscellaneous income (type not classified)', 'CRYPTO21200', true, true),
  de: h('§22 Nr. 3 EStG (type not classified)', 'EStG §22 Nr. 3', true, true),
};

/** What an income event (gains-event.ts) says of where it came from: its record id and tax type(s). */
export interface IncomeSource {
  readonly recordId: string;
  readonly spotTaxType: string;
}

/** The ledger and tax type an income event came from (its record id names the wallet). */
export function incomeTypeOf(event: IncomeSource): string {
  // A wallet of the registry other than spot (futures, margin, p2p): `<type> <scope...>`.
  const wallet = event.recordId.slice(0, Math.max(event.recordId.indexOf(':'), 0));
  if (wallet === 'spot' || !LEDGERS.includes(wallet)) return `spot:${event.spotTaxType}`;
  return `${wallet}:${event.spotTaxType.split(' ')[0] ?? ''}`;
}

/** The heads of an income event's type. */
export function incomeHeads(event: IncomeSource): IncomeHeads {
  const key = incomeTypeOf(event);
  return Object.hasOwn(HEADS, key) ? HEADS[key]! : UNKNOWN_INCOME_HEAD;
}

/** Every classified type, for the docs' table and the tests (`ledger:type`). */
export const INCOME_HEADS: Readonly<Record<string, IncomeHeads>> = HEADS;

/** The flag of an income row whose head the rules leave to the facts. */
export const INCOME_HEAD_REVIEW = 'review:income-head';
