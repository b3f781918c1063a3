import { DateTime } from 'luxon';

import { SUPPLIED_LIMITS } from '../accounting/cost-basis/supplied-csv.ts';
import type { CoinsAwayMove } from '../accounting/gains/coins-away.ts';
import { type Html, html } from './html.ts';
import { csrfField } from './page-layout.ts';
import type { SuppliedImport } from './supplied-list.ts';
import { supplyPath } from './unknown-costs.ts';

const utc = (iso: string) => iso.replace('T', ' ').replace(/(:\d{2})(\.\d+)?Z$/, '$1 UTC');
const day = (iso: string) => iso.slice(0, 10);

/** The decision in effect, in words: still held (judged when) or lost (the disposal's date). */
function decisionWords(move: CoinsAwayMove): string {
  const d = move.decision;
  if (d === null) return 'Undecided';
  const of = d.quantity === move.quantity ? '' : ` (${d.quantity} ${move.coin})`;
  return d.decision === 'held' ? `Still held${of}, judged on ${day(d.decidedAt)}` : `Lost${of} on ${day(d.decidedAt)}`;
}

/** The form deciding one move: the import checks it as `ledgerline away-decision import` checks a file. */
function decideForm(move: CoinsAwayMove, accountId: string, csrf: string, todayIso: string): Html {
  return html`<form class="entry" method="post" action="${supplyPath(accountId)}/away" data-move="${move.recordId}">
    ${csrfField(csrf)}<input type="hidden" name="move" value="${move.recordId}" />
    <p>
      <strong>${move.quantity} ${move.coin}</strong> moved away ${utc(move.movedAt)} (${move.spotTaxType},
      <code>${move.recordId}</code>), not back after ${move.daysAway} days.
    </p>
    <label
      >Decision
      <select name="decision" required>
        <option value="held">still held</option>
        <option value="lost">lost: a disposal for nothing on the date</option>
      </select></label
    >
    <label>On <input type="date" name="decided_on" value="${todayIso}" min="${day(move.movedAt)}" required /></label>
    <label
      >Quantity <input name="quantity" value="${move.quantity}" inputmode="decimal" pattern="\\d+(\\.\\d+)?" size="14"
    /></label>
    <label
      >Source
      <input
        name="source"
        required
        maxlength="40"
        pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{0,39}"
        title="where it comes from: a-z, 0-9, . _ - (e.g. strategy-statement)"
    /></label>
    <label>Note <input name="note" maxlength="${SUPPLIED_LIMITS.cellBytes}" /></label>
    <button type="submit">Record the decision</button>
  </form>`;
}

/**
 * "Coins away and not back" (docs/web-page.md): every move to a strategy, Earn or a lock not back
 * after `days` days (coins-away.ts, the list `ledgerline away-decision list` prints and the
 * summaries count as review:coins-away), the decision in effect with who made it and when, and a
 * form deciding each undecided one (recorded as `web:<role>`, withdrawable under Supplied figures).
 */
export function coinsAwaySection(
  moves: readonly CoinsAwayMove[],
  days: number,
  imports: readonly SuppliedImport[],
  accountId: string,
  csrf: string,
  listed: number,
): Html {
  const intro = html`<p>
    Coins moved to a strategy, Earn or a lock and not back after ${days} days stay in the pool as if held, and the
    summaries flag them (<abbr title="review:coins-away">marked for review</abbr>) until you decide:
    <em>still held</em>, or <em>lost</em>, a disposal for nothing on the date you give (their cost becomes the loss). As
    <code>ledgerline away-decision import</code>; a decision is changed by withdrawing it under Supplied figures.
  </p>`;
  if (moves.length === 0)
    return html`${intro}
      <p>No coins away longer than ${days} days.</p>`;
  const byImport = new Map(imports.filter((i) => i.kind === 'away-decision').map((i) => [i.id, i]));
  const todayIso = DateTime.utc().toISODate()!;
  const undecided = moves.filter((m) => m.decision === null);
  return html`${intro}
    <div class="scroll">
      <table class="coins-away">
        <thead>
          <tr>
            <th>Move</th>
            <th>Coin</th>
            <th>Still away</th>
            <th>Moved away (UTC)</th>
            <th>Days</th>
            <th>Decision</th>
            <th>Decided by</th>
            <th>Recorded (UTC)</th>
          </tr>
        </thead>
        <tbody>
          ${moves.map((m) => {
            const from = m.decision === null ? undefined : byImport.get(m.decision.importId);
            return html`<tr
              data-move="${m.recordId}"
              class="${m.decision === null ? 'undecided' : m.decision.decision}"
            >
              <td><code>${m.recordId}</code> ${m.spotTaxType}</td>
              <td>${m.coin}</td>
              <td>${m.quantity}</td>
              <td>${utc(m.movedAt)}</td>
              <td>${m.daysAway}</td>
              <td class="decision">${decisionWords(m)}</td>
              <td>${from?.suppliedBy ?? ''}</td>
              <td>${from === undefined ? '' : `${utc(from.importedAt)} (import ${from.id})`}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    ${undecided.length > listed ? html`<p>The first ${listed} of ${undecided.length} undecided moves, oldest first.</p>` : ''}
    ${undecided.slice(0, listed).map((m) => decideForm(m, accountId, csrf, todayIso))}`;
}
