/**
 * An independent calculation of a tax year's filing figures from the per-disposal rows of
 * `realized-gains --method uk` (CSV as written): it imports nothing from src/, does its arithmetic
 * in integers (BigInt, 10^-10 units: the reports print at most 10 places) and applies the rules as
 * read from their own text:
 * - SA108 "Capital gains summary" boxes for cryptoassets: number of disposals, disposal proceeds,
 *   allowable costs (including purchase price), gains in the year before losses, losses in the
 *   year; a disposal is all of a token's disposals of one day (TCGA 1992 s105 (1)(a), HMRC
 *   CRYPTO22251); its gain or loss is its proceeds minus its allowable costs;
 * - whole pounds in the taxpayer's favour (SA100: "round down income and round up expenses"):
 *   proceeds and gains down, costs and losses up.
 */
const SCALE = 10n ** 10n;

function units(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole!) * SCALE + BigInt(fraction.padEnd(10, '0').slice(0, 10) || '0');
  return negative ? -value : value;
}

const floorPounds = (v: bigint) => (v >= 0n ? v / SCALE : -((-v + SCALE - 1n) / SCALE));
const ceilPounds = (v: bigint) => -floorPounds(-v);

export interface Sa108Figures {
  disposals: string;
  proceeds: string;
  costs: string;
  gains: string;
  losses: string;
}

export function independentSa108(header: string[], rows: string[][], taxYear: string): Sa108Figures {
  const col = (name: string) => header.indexOf(name);
  const disposals = new Map<string, { proceeds: bigint; cost: bigint; unpriced: boolean }>();
  for (const r of rows) {
    if (r[col('tax_year')] !== taxYear) continue;
    const key = `${r[col('disposed_on')]} ${r[col('coin')]}`;
    const d = disposals.get(key) ?? { proceeds: 0n, cost: 0n, unpriced: false };
    if (r[col('proceeds')] === '' || r[col('allowable_cost')] === '') d.unpriced = true;
    else {
      d.proceeds += units(r[col('proceeds')]!);
      d.cost += units(r[col('allowable_cost')]!);
    }
    disposals.set(key, d);
  }
  let count = 0;
  let proceeds = 0n;
  let costs = 0n;
  let gains = 0n;
  let losses = 0n;
  for (const d of disposals.values()) {
    if (d.unpriced) continue;
    count++;
    proceeds += d.proceeds;
    costs += d.cost;
    const net = d.proceeds - d.cost;
    if (net < 0n) losses -= net;
    else gains += net;
  }
  return {
    disposals: String(count),
    proceeds: String(floorPounds(proceeds)),
    costs: String(ceilPounds(costs)),
    gains: String(floorPounds(gains)),
    losses: String(ceilPounds(losses)),
  };
}
