import type { RulesMethod } from '../../accounting/gains/gains-method.ts';

/**
 * One field of the form a tax-year pack feeds: its number on the form, its label as the form
 * prints it, and the summary CSV's cell that fills it (the row's `level` and the column).
 */
export interface FormField {
  /** The box (SA108) or line (Anlage SO, KAP) number; '' when the form gives it none we could confirm. */
  readonly number: string;
  readonly label: string;
  /** The summary CSV's row (`level` column) and column that hold the figure. */
  readonly level: string;
  readonly column: string;
}

export interface FormLayout {
  readonly title: string;
  /** Where the numbers come from, printed under the form's table. */
  readonly source: string;
  readonly fields: readonly FormField[];
}

/**
 * SA108's cryptoasset boxes exist from the 2024-25 return on (before it, cryptoassets went in
 * "Other property, assets and gains", whose box numbers moved between editions: we print the
 * labels only). Numbers 13.2-13.5 as given for the SA108 from 2024-25 (docs/reports.md, "The
 * tax-year pack", cites where they were read); 13.1 is the section's first box, its count of
 * disposals. The labels are the notes' own.
 */
const SA108_CRYPTO_FROM = 2024;

export function sa108Layout(taxYear: string): FormLayout {
  const numbered = Number(taxYear.slice(0, 4)) >= SA108_CRYPTO_FROM;
  const box = (n: string) => (numbered ? n : '');
  return {
    title: numbered
      ? 'SA108 Capital Gains summary: Cryptoassets'
      : 'SA108 Capital Gains summary: Other property, assets and gains (no cryptoasset section before 2024-25)',
    source: numbered
      ? 'Box numbers of the SA108 cryptoasset section from the 2024-25 return on; labels as the SA108 notes print them. Whole pounds, as the boxes take them.'
      : 'The SA108 of this year has no cryptoasset section: enter these figures in its “Other property, assets and gains” boxes (see that year’s SA108 notes for their numbers). Whole pounds.',
    fields: [
      { number: box('13.1'), label: 'Number of disposals', level: 'sa108', column: 'disposals' },
      { number: box('13.2'), label: 'Disposal proceeds', level: 'sa108', column: 'proceeds' },
      {
        number: box('13.3'),
        label: 'Allowable costs (including purchase price)',
        level: 'sa108',
        column: 'allowable_costs',
      },
      { number: box('13.4'), label: 'Gains in the year, before losses', level: 'sa108', column: 'gains' },
      { number: box('13.5'), label: 'Losses in the year', level: 'sa108', column: 'losses' },
    ],
  };
}

/**
 * Anlage SO from 2023 on: private Veräußerungsgeschäfte of "anderen Wirtschaftsgütern" (virtual
 * currencies and tokens) in Zeilen 41-47, their sum in Zeile 54; the Leistungen of § 22 Nr. 3
 * EStG (staking, lending) on their own lines, which we give no number for.
 */
export const ANLAGE_SO: FormLayout = {
  title: 'Anlage SO: Private Veräußerungsgeschäfte (§ 23 EStG), andere Wirtschaftsgüter',
  source:
    'Zeilen of the Anlage SO from 2023 on (andere Wirtschaftsgüter, e.g. virtuelle Währungen und sonstige Token, Zeilen 41-47); whole euros. Fees are in the figures (realized-gains file), not on Zeile 46 again.',
  fields: [
    { number: '44', label: 'Veräußerungspreis', level: 'anlage-so', column: 'taxable_proceeds' },
    { number: '45', label: 'Anschaffungskosten', level: 'anlage-so', column: 'taxable_cost' },
    { number: '47', label: 'Gewinn / Verlust', level: 'anlage-so', column: 'taxable_gain' },
    { number: '', label: 'Freigrenze (§ 23 Abs. 3 Satz 5 EStG)', level: 'total', column: 'freigrenze' },
    { number: '', label: 'unter der Freigrenze', level: 'total', column: 'below_freigrenze' },
    { number: '', label: 'steuerpflichtiger Betrag', level: 'total', column: 'taxable_amount' },
    { number: '', label: 'Einkünfte aus Leistungen (§ 22 Nr. 3 EStG)', level: 'anlage-so', column: 'other_income' },
  ],
};

/**
 * Anlage KAP, capital income not taxed at source in Germany (a foreign exchange): Zeile 19 the
 * income, Zeile 21 the Termingeschäfte gains in it, Zeile 24 the Termingeschäfte losses. A futures
 * row's net in euros goes to 19 and 21 when a gain, to 24 when a loss.
 */
export const ANLAGE_KAP_LINES = {
  income: '19',
  futuresGains: '21',
  futuresLosses: '24',
} as const;

export function formLayout(method: RulesMethod, taxYear: string): FormLayout {
  return method === 'uk' ? sa108Layout(taxYear) : ANLAGE_SO;
}
