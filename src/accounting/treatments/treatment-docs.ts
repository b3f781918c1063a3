import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { markedBlock, replaceMarkedBlock } from '../../exchange/tools/doc-blocks.ts';
import { normalizeBlock } from '../../streams/tools/endpoint-table.ts';
import { INCOME_HEADS } from './income-heads.ts';
import { LEDGERS, TREATMENT_KINDS, type TreatmentKind, treatmentsOf } from './treatment-table.ts';

/**
 * The treatment tables of docs/reports.md ("Treatments"), written from the histories' declared
 * treatments (each stream's own table, read through the registry: treatment-table.ts) and the walk's
 * rules, so the documented treatment cannot drift from the one applied. `npm run docs:treatments`
 * rewrites the block; `npm run docs:treatments -- --check` only says whether it is current.
 * test/accounting/treatment-table.unit.test.ts runs the same comparison.
 */
export const REPORTS_DOC = path.resolve(import.meta.dirname, '../../../docs/reports.md');
export const TREATMENT_BLOCK = 'treatment-table';
export const INCOME_HEADS_BLOCK = 'income-heads';

type MethodColumn = 'lots' | 'uk' | 'de';

/** What each kind does under each method (walk-history.ts, walk-trade.ts), with its rule source. */
export const KIND_BY_METHOD: Readonly<Record<TreatmentKind, Readonly<Record<MethodColumn, string>>>> = {
  'trade-leg': {
    lots: 'disposal of the coin given, acquisition of the coin received, at one value; a fee in the received coin charged to the disposal',
    uk: 'same; a fee in the received token apportioned half to each token (CRYPTO22150, just and reasonable)',
    de: 'as fifo (FIFO, BMF 10.5.2022 Rn. 59); a fee charged to the disposal (EStG §23(3))',
  },
  'trade-fee': {
    lots: 'third coin disposed of at market value; the value reduces the trade’s proceeds, or adds to its cost when the valuation currency was given',
    uk: 'third token disposed of at market value (CRYPTO22150); the value allowed on the trade (TCGA92 s38(1)(c)), half to each token between two tokens',
    de: 'as fifo',
  },
  'other-fee': {
    lots: 'disposal at market value, no further allowable cost',
    uk: 'disposal at market value, no further allowable cost (CRYPTO22150, CRYPTO22280; TCGA92 s38)',
    de: 'disposal at market value (a Tausch, BMF 10.5.2022 Rn. 52)',
  },
  income: {
    lots: 'income at market value on receipt, a lot at that value; paid out: disposal at market value',
    uk: 'miscellaneous income at receipt (CRYPTO21200), the lot’s cost that value (TCGA92 s38)',
    de: 'income under §22 Nr. 3 EStG (EUR 256 Freigrenze), the lot’s cost that value',
  },
  rebate: {
    lots: 'a lot of cost 0 (nothing given for it): the fee it rebates reduced over the coins’ life',
    uk: 'same (TCGA92 s38(1)(a): no consideration given)',
    de: 'same (Anschaffungskosten 0)',
  },
  'own-move': { lots: 'nothing: the lots stay', uk: 'nothing: the pool stays', de: 'nothing: the lots stay' },
  loan: {
    lots: 'acquisition / disposal at market value (review)',
    uk: 'same (review: CRYPTO61000 lending and borrowing)',
    de: 'same (review)',
  },
  borrowing: {
    lots: 'borrowed coins acquired at market value on the day, a lot like any other; repaid coins disposed of at market value on the day (the debt released is the consideration), its fee an incidental cost; no income',
    uk: 'same: the borrower may deal with the tokens as it wishes, so beneficial ownership passes to it (CRYPTO61620): an acquisition at market value (TCGA92 s17(1)) joining the s104 pool (s104(1)), same-day and 30-day rules included; repaying tokens is a disposal (CRYPTO22100) at market value',
    de: 'same: a Sachdarlehen (BGB §607(1)) passes Eigentum: an Anschaffung on receipt, a Veräußerung on return (EStG §23 (1) Satz 1 Nr. 2; BMF 10.5.2022 Rz. 65 a lending as Sachdarlehen), matched FIFO like every unit (Rz. 59)',
  },
  deposit: {
    lots: 'supplied lots (cost-basis import) or a lot of unknown cost and no date: consumers flagged review:unknown-cost',
    uk: 'same; a pool holding tokens of unknown cost has unknown cost until emptied',
    de: 'same; the one-year period runs from the supplied acquisition date (EStG §23(1) Nr. 2)',
  },
  withdrawal: {
    lots: 'lots leave, nothing realized; beyond the holdings flagged review:withdrawal-exceeds-holdings',
    uk: 'tokens leave the pool at average cost at the day’s end; beyond it flagged',
    de: 'as fifo',
  },
  'unknown-proceeds': {
    lots: 'disposal at the proceeds supplied in the walk’s currency (proceeds import), else left empty (never the market value), flagged review:unknown-proceeds',
    uk: 'same; until supplied, the day’s disposal of that token has unknown proceeds (CRYPTO22100: a sale for money is a disposal)',
    de: 'same (a Veräußerung, BMF 10.5.2022 Rn. 54)',
  },
  market: {
    lots: 'acquisition or disposal at market value (futures results, adjustments, refunds, expenses), a fee an incidental cost of the disposal; a futures result paid: its fee’s coins disposed of at market value too (the fee is in the futures rows’ `fees`, never also a cost here)',
    uk: 'same; a futures result paid or received in the margin token moves the pool (CRYPTO22150), its fee deducted once, in the futures result (TCGA92 s52(1): no deduction more than once)',
    de: 'same; the fee of a Termingeschäft is part of its result (EStG §20 (4) Satz 5), not Werbungskosten of the margin coin’s Veräußerung',
  },
};

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const separator = (n: number) => row(Array.from({ length: n }, () => '---'));

export function renderTreatmentBlock(): string {
  const methods = [
    row(['Treatment', 'fifo, lifo, hifo, average', 'uk', 'de']),
    separator(4),
    ...TREATMENT_KINDS.map((kind) => {
      const m = KIND_BY_METHOD[kind];
      return row([`\`${kind}\``, m.lots, m.uk, m.de]);
    }),
  ];
  const types = [row(['Ledger', 'Tax type', 'Treatment', 'Note']), separator(4)];
  for (const ledger of LEDGERS) {
    for (const [type, treatment] of Object.entries(treatmentsOf(ledger))) {
      types.push(row([ledger, `\`${type}\``, `\`${treatment.kind}\``, treatment.note ?? '']));
    }
  }
  return `${methods.join('\n')}\n\n${types.join('\n')}`;
}

/** The income heads' table (income-heads.ts): per income type, its head under uk and de with the rule. */
export function renderIncomeHeadsBlock(): string {
  const flag = (review: boolean) => (review ? ' **(review)**' : '');
  const lines = [row(['Ledger', 'Tax type', 'uk', 'de']), separator(4)];
  for (const [key, heads] of Object.entries(INCOME_HEADS)) {
    const [ledger, ...type] = key.split(':');
    lines.push(
      row([
        ledger!,
        `\`${type.join(':')}\``,
        `${heads.uk.head}${flag(heads.uk.review)}: ${heads.uk.source}`,
        `${heads.de.head}${flag(heads.de.review)}: ${heads.de.source}`,
      ]),
    );
  }
  return lines.join('\n');
}

const isCurrent = (docText: string, block: string, rendered: string) =>
  JSON.stringify(normalizeBlock(markedBlock(docText, block))) === JSON.stringify(normalizeBlock(rendered));

export function treatmentBlockIsCurrent(docText: string): boolean {
  return (
    isCurrent(docText, TREATMENT_BLOCK, renderTreatmentBlock()) &&
    isCurrent(docText, INCOME_HEADS_BLOCK, renderIncomeHeadsBlock())
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docText = readFileSync(REPORTS_DOC, 'utf8');
  if (process.argv.includes('--check')) {
    const current = treatmentBlockIsCurrent(docText);
    console.log(current ? 'docs/reports.md: treatment table is current' : 'docs/reports.md: treatment table differs');
    process.exitCode = current ? 0 : 1;
  } else {
    const withTreatments = replaceMarkedBlock(docText, TREATMENT_BLOCK, renderTreatmentBlock());
    writeFileSync(REPORTS_DOC, replaceMarkedBlock(withTreatments, INCOME_HEADS_BLOCK, renderIncomeHeadsBlock()));
    console.log('docs/reports.md: treatment table written from src/accounting/treatments');
  }
}
