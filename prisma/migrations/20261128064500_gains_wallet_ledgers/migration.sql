-- Written by hand (schema.prisma cannot declare triggers; no table changes), as in
-- 20261128033103_cost_basis_import: the realized-gains walk now also reads the margin and P2P
-- wallets (src/booking/wallet-entries.ts), so a change to their records is logged in
-- gains_input_change, dated by the earliest instant it can change, and stored checkpoints after
-- that instant stop matching. Rows rewritten unchanged log nothing.
CREATE FUNCTION "gains_margin_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM (
      (SELECT account_id, record_id, ts, margin_type, symbol, coin, margin_tax_type, amount, fee FROM new_rows
       EXCEPT SELECT account_id, record_id, ts, margin_type, symbol, coin, margin_tax_type, amount, fee FROM old_rows)
      UNION ALL
      (SELECT account_id, record_id, ts, margin_type, symbol, coin, margin_tax_type, amount, fee FROM old_rows
       EXCEPT SELECT account_id, record_id, ts, margin_type, symbol, coin, margin_tax_type, amount, fee FROM new_rows)
    ) d GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "margin_ledger_record_gains_insert" AFTER INSERT ON "margin_ledger_record"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_margin_ledger_changed"();
CREATE TRIGGER "margin_ledger_record_gains_update" AFTER UPDATE ON "margin_ledger_record"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_margin_ledger_changed"();
CREATE TRIGGER "margin_ledger_record_gains_delete" AFTER DELETE ON "margin_ledger_record"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_margin_ledger_changed"();
CREATE TRIGGER "margin_ledger_record_gains_truncate" AFTER TRUNCATE ON "margin_ledger_record"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_margin_ledger_changed"();

CREATE FUNCTION "gains_p2p_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(ts), TG_TABLE_NAME FROM (
      (SELECT account_id, record_id, ts, coin, p2p_tax_type, total FROM new_rows
       EXCEPT SELECT account_id, record_id, ts, coin, p2p_tax_type, total FROM old_rows)
      UNION ALL
      (SELECT account_id, record_id, ts, coin, p2p_tax_type, total FROM old_rows
       EXCEPT SELECT account_id, record_id, ts, coin, p2p_tax_type, total FROM new_rows)
    ) d GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "p2p_ledger_record_gains_insert" AFTER INSERT ON "p2p_ledger_record"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_p2p_ledger_changed"();
CREATE TRIGGER "p2p_ledger_record_gains_update" AFTER UPDATE ON "p2p_ledger_record"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_p2p_ledger_changed"();
CREATE TRIGGER "p2p_ledger_record_gains_delete" AFTER DELETE ON "p2p_ledger_record"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_p2p_ledger_changed"();
CREATE TRIGGER "p2p_ledger_record_gains_truncate" AFTER TRUNCATE ON "p2p_ledger_record"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_p2p_ledger_changed"();
