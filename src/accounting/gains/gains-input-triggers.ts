import { streamDefinition, WALLET_LEDGERS, walletFacts, type WalletLedger } from '../../streams/registry.ts';

/**
 * The triggers that log every change to a wallet ledger's records in gains_input_change, written
 * from the ledger's declaration (its table, key, time, scope and core columns): the walk reads each
 * wallet ledger of the registry (wallet-entries.ts), so each one's table needs them, and a stored
 * checkpoint after the earliest changed instant stops matching (gains-checkpoint-store.ts says why a
 * count of these rows detects every change). Rows rewritten unchanged log nothing: an UPDATE logs
 * only rows whose compared columns differ (every core column but the running total, which the walk
 * never reads, plus the scope).
 *
 * A migration cannot be written by Prisma for a trigger: a new wallet ledger's migration carries
 * this SQL (`npm run db:gains-triggers -- <stream>` prints it). The margin and P2P ledgers' came
 * by hand in 20261128064500_gains_wallet_ledgers; this writes the same text, and
 * test/accounting/gains-input-triggers.test.ts holds every registered wallet ledger's table in the
 * migrated database to it, so a ledger registered without its triggers fails there, named.
 */

/** The trigger function's name: `gains_<stream, underscored>_changed`. */
export function gainsTriggerFunction(stream: WalletLedger): string {
  return `gains_${stream.replace(/-/g, '_')}_changed`;
}

/** The four statements a table's triggers fire on, by name suffix. */
export const GAINS_TRIGGER_EVENTS = ['insert', 'update', 'delete', 'truncate'] as const;

/** The columns an UPDATE compares: the key, the time, the scope, then the other core columns but the running total. */
export function gainsInputColumns(stream: WalletLedger): string[] {
  const definition = streamDefinition(stream);
  const facts = walletFacts(stream);
  const time = definition.columns[definition.paging.time]!.column;
  const key = definition.table.key;
  const scope = definition.scopeColumn ? [definition.scopeColumn.name] : [];
  const rest = Object.values(definition.columns)
    .filter((field) => field.core === true)
    .map((field) => field.column)
    .filter((column) => !key.includes(column) && column !== time && column !== facts.runningTotal);
  return [...key, time, ...scope, ...rest];
}

/** The function's body (what Postgres stores as its `prosrc`). */
export function gainsTriggerBody(stream: WalletLedger): string {
  const definition = streamDefinition(stream);
  const time = definition.columns[definition.paging.time]!.column;
  const columns = gainsInputColumns(stream).join(', ');
  return `
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(${time}), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(${time}), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(${time}), TG_TABLE_NAME FROM (
      (SELECT ${columns} FROM new_rows
       EXCEPT SELECT ${columns} FROM old_rows)
      UNION ALL
      (SELECT ${columns} FROM old_rows
       EXCEPT SELECT ${columns} FROM new_rows)
    ) d GROUP BY account_id;
  END IF;
  RETURN NULL;
END
`;
}

/** The migration SQL of one wallet ledger's triggers: its function and one trigger per statement. */
export function gainsTriggerSql(stream: WalletLedger): string {
  const table = streamDefinition(stream).table.table;
  const fn = gainsTriggerFunction(stream);
  const transitions: Record<(typeof GAINS_TRIGGER_EVENTS)[number], string> = {
    insert: 'REFERENCING NEW TABLE AS new_rows ',
    update: 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows ',
    delete: 'REFERENCING OLD TABLE AS old_rows ',
    truncate: '',
  };
  const triggers = GAINS_TRIGGER_EVENTS.map(
    (event) =>
      `CREATE TRIGGER "${table}_gains_${event}" AFTER ${event.toUpperCase()} ON "${table}"\n` +
      `  ${transitions[event]}FOR EACH STATEMENT EXECUTE FUNCTION "${fn}"();`,
  );
  return `CREATE FUNCTION "${fn}"() RETURNS trigger LANGUAGE plpgsql AS $$${gainsTriggerBody(stream)}$$;\n\n${triggers.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((s) => !WALLET_LEDGERS.some((w) => w === s));
  if (unknown.length > 0) {
    console.error(`not a wallet ledger of the registry: ${unknown.join(', ')} (one of ${WALLET_LEDGERS.join(', ')})`);
    process.exitCode = 2;
  } else {
    const streams = asked.length > 0 ? WALLET_LEDGERS.filter((w) => asked.includes(w)) : WALLET_LEDGERS;
    process.stdout.write(streams.map(gainsTriggerSql).join('\n'));
  }
}
