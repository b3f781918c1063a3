import { PermanentError } from '../../errors/index.ts';

/**
 * A coin whose closing balance, computed from its opening balance and the period's records, is not
 * the balance the exchange states on the coin's last record of the period: a record is missing,
 * duplicated or wrong in the stored history. The export fails; nothing is written under its name.
 */
export class BalanceTieOutError extends PermanentError {
  readonly coin: string;
  readonly computed: string;
  readonly exchange: string;

  constructor(coin: string, computed: string, exchange: string) {
    super(
      `coin ${coin}: the closing balance computed from the records (${computed}) is not the exchange's balance (${exchange}); reconcile the account and sync again`,
      { code: 'BALANCE_TIE_OUT', field: 'coin', rule: "closing balance must equal the exchange's balance" },
    );
    this.coin = coin;
    this.computed = computed;
    this.exchange = exchange;
  }
}
