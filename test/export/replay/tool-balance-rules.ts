import { Decimal } from 'decimal.js';

/**
 * How Koinly and CoinTracking turn one row of their CSV import into balance changes, restated from
 * each tool's own documentation, not from ledgerline's exporter, so that a file replayed here shows
 * the balances the accountant will see in the tool:
 *
 * Koinly (universal CSV, https://support.koinly.io/en/articles/9489976): `Received Amount` in
 * `Received Currency` comes in, `Sent Amount` in `Sent Currency` goes out, and `Fee Amount` in
 * `Fee Currency` goes out besides them, in any currency (a deposit may not carry one: "What are
 * transactions in Koinly", https://support.koinly.io/en/articles/9490022). The tag does not change
 * the balance.
 *
 * CoinTracking (its CSV import; "Entering fees",
 * https://cointracking.freshdesk.com/en/support/solutions/articles/29000007202): `Buy Amount` in
 * `Buy Currency` comes in and `Sell Amount` in `Sell Currency` goes out, whatever the type; the
 * `Fee` column is "more an informational value": it is never deducted (the amounts already include
 * the fee, and a fee in a third currency needs its own `Other Fee` row).
 */
export interface BalanceChange {
  readonly coin: string;
  /** Signed: + in, - out. */
  readonly amount: Decimal;
}

export interface ToolRules {
  readonly tool: 'koinly' | 'cointracking';
  /** The balance changes one row of the tool's file makes, the row keyed by the file's header. */
  changes(row: Readonly<Record<string, string>>): BalanceChange[];
}

function change(amount: string | undefined, coin: string | undefined, sign: 1 | -1): BalanceChange[] {
  if (!amount) return [];
  if (!coin) throw new Error(`an amount without its currency: ${amount}`);
  const value = new Decimal(amount);
  if (value.isNegative()) throw new Error(`a negative amount in a column that states its direction: ${amount}`);
  return [{ coin, amount: sign === 1 ? value : value.neg() }];
}

export const KOINLY_RULES: ToolRules = {
  tool: 'koinly',
  changes: (row) => [
    ...change(row['Received Amount'], row['Received Currency'], 1),
    ...change(row['Sent Amount'], row['Sent Currency'], -1),
    ...change(row['Fee Amount'], row['Fee Currency'], -1),
  ],
};

export const COINTRACKING_RULES: ToolRules = {
  tool: 'cointracking',
  changes: (row) => [
    ...change(row['Buy Amount'], row['Buy Currency'], 1),
    ...change(row['Sell Amount'], row['Sell Currency'], -1),
    // `Fee` / `Fee Currency`: information only, by CoinTracking's rule.
  ],
};

/** Per wallet, per coin: the change over the rows and the lowest running balance from the opening. */
export interface WalletReplay {
  readonly change: Map<string, Decimal>;
  readonly lowest: Map<string, Decimal>;
}

/**
 * Replays a file's rows (in file order) as the tool does, each row in the wallet `walletOf` names,
 * starting from the wallets' opening balances (coins absent: 0).
 */
export function replay(
  rows: readonly Readonly<Record<string, string>>[],
  rules: ToolRules,
  walletOf: (row: Readonly<Record<string, string>>) => string,
  opening: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): Map<string, WalletReplay> {
  const wallets = new Map<string, WalletReplay & { balance: Map<string, Decimal> }>();
  const walletNamed = (name: string) => {
    let wallet = wallets.get(name);
    if (!wallet) {
      const balance = new Map(Object.entries(opening[name] ?? {}).map(([coin, value]) => [coin, new Decimal(value)]));
      wallet = { change: new Map(), lowest: new Map(balance), balance };
      wallets.set(name, wallet);
    }
    return wallet;
  };
  for (const row of rows) {
    const wallet = walletNamed(walletOf(row));
    for (const { coin, amount } of rules.changes(row)) {
      wallet.change.set(coin, (wallet.change.get(coin) ?? new Decimal(0)).plus(amount));
      const balance = (wallet.balance.get(coin) ?? new Decimal(0)).plus(amount);
      wallet.balance.set(coin, balance);
      const lowest = wallet.lowest.get(coin);
      if (lowest === undefined || balance.lt(lowest)) wallet.lowest.set(coin, balance);
    }
  }
  return new Map([...wallets].map(([name, { change, lowest }]) => [name, { change, lowest }]));
}
