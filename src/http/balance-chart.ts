import { type Html, html } from './html.ts';
import type { CoinBalances } from './monthly-balances.ts';

/**
 * Closing balances as small server-rendered bar charts, one per coin: bar heights are scaled in
 * floating point for drawing only; every figure shown as text (each bar's tooltip, the latest
 * balance) is the stored decimal, exactly.
 */

const BAR_WIDTH = 20;
const HEIGHT = 40;

function chart(coin: CoinBalances): Html {
  const values = coin.months.map((m) => Number(m.balance));
  const max = Math.max(...values.map(Math.abs), Number.MIN_VALUE);
  const width = coin.months.length * BAR_WIDTH;
  return html`<svg
    class="balance-chart"
    viewBox="0 0 ${width} ${HEIGHT}"
    role="img"
    aria-label="${coin.coin} closing balances"
  >
    ${coin.months.map((m, k) => {
      const h = Math.max((Math.abs(values[k]!) / max) * (HEIGHT - 2), values[k] === 0 ? 0 : 1);
      const fill = values[k]! < 0 ? '#d92d20' : '#2f6feb';
      return html`<rect
        x="${k * BAR_WIDTH + 2}"
        y="${(HEIGHT - h).toFixed(1)}"
        width="${BAR_WIDTH - 4}"
        height="${h.toFixed(1)}"
        fill="${fill}"
        ><title>${m.month}: ${m.balance} ${coin.coin}</title></rect
      >`;
    })}
  </svg>`;
}

export function balancesSection(coins: readonly CoinBalances[]): Html {
  if (coins.length === 0) return html`<p>No spot record stored yet.</p>`;
  const months = coins[0]!.months;
  return html`<p class="hint">
      Closing balance per coin at the end of each UTC month, ${months[0]!.month} to ${months.at(-1)!.month}, from the
      stored spot records (hover a bar for its exact value).
    </p>
    <div class="balances">
      ${coins.map((c) => {
        const last = c.months.at(-1)!;
        return html`<figure class="balance">
          <figcaption><strong>${c.coin}</strong> <span>${last.balance} at the end of ${last.month}</span></figcaption>
          ${chart(c)}
        </figure>`;
      })}
    </div>`;
}

export const BALANCE_STYLE = `.balances{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.5rem 1.5rem}
figure.balance{margin:0}figure.balance figcaption{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 .5rem;font-size:.88rem}figure.balance figcaption span{white-space:nowrap}
svg.balance-chart{display:block;width:100%;height:40px;background:#f6f8fa;border-radius:3px}.hint{color:#57606a;font-size:.88rem}`;
