import { DateTime } from 'luxon';

import { type Html, html } from './html.ts';
import type { CoinBalances } from './monthly-balances.ts';

/**
 * Closing balances as small server-rendered bar charts, one per coin, with their axes labelled:
 * the coin's balance up the side (0 and the largest), the months along the bottom (the year under
 * each January and the first month). Bar heights are scaled in floating point for drawing only;
 * every figure shown as text (each bar's tooltip, the latest balance) is the stored decimal,
 * exactly, and the axis's largest value is cut from that decimal's text (marked ≈ when cut).
 */

// The drawing's own units; the SVG scales as a whole (text with it), so nothing is squeezed.
const WIDTH = 320;
const HEIGHT = 128;
const LEFT = 66;
const RIGHT = 6;
const TOP = 8;
const PLOT_BOTTOM = HEIGHT - 34;
const AXIS_DIGITS = 8;
/** A year label's width at the chart's 10-unit font ("2026" and a gap): closer labels would touch. */
const YEAR_LABEL_WIDTH = 28;
/** A month label's width at its 8.5-unit font ("Sep" and a gap). */
const MONTH_LABEL_WIDTH = 18;

/** A stored decimal shortened for an axis label, from its text (never through a double). */
export function axisFigure(value: string): string {
  const negative = value.startsWith('-');
  const digits = negative ? value.slice(1) : value;
  if (digits.length <= AXIS_DIGITS) return value;
  const [whole, fraction = ''] = digits.split('.') as [string, string?];
  const kept = fraction.slice(0, Math.max(0, AXIS_DIGITS - whole.length - 1)).replace(/0+$/, '');
  return `≈${negative ? '-' : ''}${whole}${kept ? `.${kept}` : ''}`;
}

const monthOf = (month: string) => DateTime.fromFormat(month, 'yyyy-MM', { zone: 'utc' });

/** "Jan 2026" for a YYYY-MM month. */
export const monthName = (month: string): string => monthOf(month).toFormat('LLL yyyy');

/**
 * Which axis labels a chart of these months (YYYY-MM) shows, `step` units apart, so that none
 * touches the next: every month's name, or every 2nd, 3rd, 6th (January always among them) when
 * they are narrower than a name; the year under each January, and under the first month unless a
 * January follows so closely that the two years would run together ("20252026"). Pure.
 */
export function axisLabels(months: readonly string[], step: number): { monthEvery: number; yearAt: Set<number> } {
  const monthEvery = [1, 2, 3, 6, 12].find((n) => n * step >= MONTH_LABEL_WIDTH) ?? 12;
  const januaries = months.flatMap((m, k) => (m.endsWith('-01') ? [k] : []));
  const yearAt = new Set(januaries);
  const firstJanuary = januaries[0];
  if (firstJanuary === undefined || firstJanuary * step >= YEAR_LABEL_WIDTH) yearAt.add(0);
  // Years closer than a label (a chart of many years): every other one, then every fourth...
  let every = 1;
  while (every < januaries.length && 12 * every * step < YEAR_LABEL_WIDTH) every *= 2;
  if (every > 1) for (const [n, k] of januaries.entries()) if (n % every !== 0) yearAt.delete(k);
  return { monthEvery, yearAt };
}

/** The month-end figures as text: what the bars show, exact, readable without hovering a bar. */
function figuresTable(coin: CoinBalances): Html {
  return html`<details class="figures">
    <summary>Month-end figures</summary>
    <table>
      <tbody>
        ${coin.months.map(
          (m) =>
            html`<tr>
              <td>${monthName(m.month)}</td>
              <td class="num">${m.balance}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </details>`;
}

function chart(coin: CoinBalances): Html {
  const values = coin.months.map((m) => Number(m.balance));
  const largest = coin.months.reduce(
    (best, m, k) => (Math.abs(values[k]!) > Math.abs(Number(best)) ? m.balance : best),
    '0',
  );
  const max = Math.max(Math.abs(Number(largest)), Number.MIN_VALUE);
  const step = (WIDTH - LEFT - RIGHT) / coin.months.length;
  const plot = PLOT_BOTTOM - TOP;
  const { monthEvery, yearAt } = axisLabels(
    coin.months.map((m) => m.month),
    step,
  );
  return html`<svg
    class="balance-chart"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    role="img"
    aria-label="${coin.coin} closing balance per month"
  >
    <text class="axis-title" transform="translate(9 ${(TOP + PLOT_BOTTOM) / 2}) rotate(-90)" text-anchor="middle">
      ${coin.coin}
    </text>
    ${Number(largest) === 0 ? '' : html`<text class="axis" x="${LEFT - 4}" y="${TOP + 4}" text-anchor="end">${axisFigure(largest)}</text>`}
    <text class="axis" x="${LEFT - 4}" y="${PLOT_BOTTOM}" text-anchor="end">0</text>
    <line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${PLOT_BOTTOM}" stroke="#8c959f" stroke-width="1" />
    <line
      x1="${LEFT}"
      y1="${PLOT_BOTTOM}"
      x2="${WIDTH - RIGHT}"
      y2="${PLOT_BOTTOM}"
      stroke="#8c959f"
      stroke-width="1"
    />
    ${coin.months.map((m, k) => {
      const h = Math.max((Math.abs(values[k]!) / max) * plot, values[k] === 0 ? 0 : 1);
      const fill = values[k]! < 0 ? '#d92d20' : '#2f6feb';
      const x = LEFT + k * step;
      const month = monthOf(m.month);
      return html`<rect
          x="${(x + 2).toFixed(1)}"
          y="${(PLOT_BOTTOM - h).toFixed(1)}"
          width="${(step - 4).toFixed(1)}"
          height="${h.toFixed(1)}"
          fill="${fill}"
          ><title>${m.month}: ${m.balance} ${coin.coin}</title></rect
        >
        ${
          (month.month - 1) % monthEvery === 0
            ? html`<text class="month" x="${(x + step / 2).toFixed(1)}" y="${PLOT_BOTTOM + 12}" text-anchor="middle">
                ${month.toFormat('LLL')}
              </text>`
            : ''
        }
        ${yearAt.has(k) ? html`<text class="axis year" x="${x.toFixed(1)}" y="${PLOT_BOTTOM + 26}">${month.year}</text>` : ''}`;
    })}
  </svg>`;
}

/**
 * The latest figure of a coin: "at the end of" a month that is over, "so far in" the month that
 * is not (its balance can still change).
 */
export function latestCaption(month: string, balance: string, now: number): string {
  const current = DateTime.fromMillis(now, { zone: 'utc' }).toFormat('yyyy-MM');
  return month >= current ? `${balance} so far in ${monthName(month)}` : `${balance} at the end of ${monthName(month)}`;
}

export function balancesSection(coins: readonly CoinBalances[], now: number = Date.now()): Html {
  if (coins.length === 0) return html`<p>No spot record stored yet.</p>`;
  const months = coins[0]!.months;
  return html`<p class="hint">
      Closing balance per coin at the end of each UTC month, ${monthName(months[0]!.month)} to
      ${monthName(months.at(-1)!.month)}, from the stored spot records; each chart's exact figures are under it.
    </p>
    <div class="balances">
      ${coins.map((c) => {
        const last = c.months.at(-1)!;
        return html`<figure class="balance">
          <figcaption>
            <strong>${c.coin}</strong> <span>${latestCaption(last.month, last.balance, now)}</span>
          </figcaption>
          ${chart(c)} ${figuresTable(c)}
        </figure>`;
      })}
    </div>`;
}

export const BALANCE_STYLE = `.balances{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:.75rem 1.5rem}
figure.balance{margin:0}figure.balance figcaption{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 .5rem;font-size:.88rem}figure.balance figcaption span{white-space:nowrap}
svg.balance-chart{display:block;width:100%;height:auto;background:#f6f8fa;border-radius:3px}
svg.balance-chart text{font-size:10px;fill:#57606a;font-family:system-ui,sans-serif}svg.balance-chart .axis-title{font-weight:600;fill:#1b1f24}svg.balance-chart text.month{font-size:8.5px}
.hint{color:#57606a;font-size:.88rem}
details.figures{font-size:.85rem}details.figures table{border-collapse:collapse}details.figures td{padding:0 .75rem 0 0}details.figures td.num{text-align:right;font-variant-numeric:tabular-nums}`;
