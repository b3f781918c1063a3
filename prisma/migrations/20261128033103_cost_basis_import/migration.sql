-- CreateTable
CREATE TABLE "cost_basis_import" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "file_name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "sources" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cost_basis_import_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cost_basis_lot" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "import_id" BIGINT NOT NULL,
    "coin" TEXT NOT NULL,
    "quantity" DECIMAL NOT NULL,
    "acquired_at" TIMESTAMPTZ(3) NOT NULL,
    "cost" DECIMAL NOT NULL,
    "currency" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "cost_basis_lot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "cost_basis_import_account_id_sha256_key" ON "cost_basis_import"("account_id", "sha256");

-- CreateIndex
CREATE UNIQUE INDEX "cost_basis_lot_account_id_coin_acquired_at_quantity_cost_cu_key" ON "cost_basis_lot"("account_id", "coin", "acquired_at", "quantity", "cost", "currency", "source");

-- AddForeignKey
ALTER TABLE "cost_basis_import" ADD CONSTRAINT "cost_basis_import_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cost_basis_lot" ADD CONSTRAINT "cost_basis_lot_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cost_basis_lot" ADD CONSTRAINT "cost_basis_lot_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "cost_basis_import"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand below (schema.prisma cannot declare triggers), as in 20261126120654_gains_checkpoint:
-- the realized-gains walk now also reads the futures wallet (futures_ledger_record, and the closed
-- positions before it) and the supplied costs (cost_basis_lot), so a change to them is logged in
-- gains_input_change, dated by the earliest instant it can change, and stored checkpoints after
-- that instant stop matching. Rows rewritten unchanged log nothing.
CREATE FUNCTION "gains_futures_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
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
      (SELECT account_id, record_id, ts, margin_coin, future_tax_type, amount, fee FROM new_rows
       EXCEPT SELECT account_id, record_id, ts, margin_coin, future_tax_type, amount, fee FROM old_rows)
      UNION ALL
      (SELECT account_id, record_id, ts, margin_coin, future_tax_type, amount, fee FROM old_rows
       EXCEPT SELECT account_id, record_id, ts, margin_coin, future_tax_type, amount, fee FROM new_rows)
    ) d GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "futures_ledger_record_gains_insert" AFTER INSERT ON "futures_ledger_record"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_ledger_changed"();
CREATE TRIGGER "futures_ledger_record_gains_update" AFTER UPDATE ON "futures_ledger_record"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_ledger_changed"();
CREATE TRIGGER "futures_ledger_record_gains_delete" AFTER DELETE ON "futures_ledger_record"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_ledger_changed"();
CREATE TRIGGER "futures_ledger_record_gains_truncate" AFTER TRUNCATE ON "futures_ledger_record"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_ledger_changed"();

CREATE FUNCTION "gains_futures_position_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(updated_time), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(updated_time), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(updated_time), TG_TABLE_NAME FROM (
      (SELECT account_id, position_id, updated_time, margin_coin, pnl, open_fee, close_fee, total_funding FROM new_rows
       EXCEPT SELECT account_id, position_id, updated_time, margin_coin, pnl, open_fee, close_fee, total_funding FROM old_rows)
      UNION ALL
      (SELECT account_id, position_id, updated_time, margin_coin, pnl, open_fee, close_fee, total_funding FROM old_rows
       EXCEPT SELECT account_id, position_id, updated_time, margin_coin, pnl, open_fee, close_fee, total_funding FROM new_rows)
    ) d GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "futures_position_gains_insert" AFTER INSERT ON "futures_position"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_position_changed"();
CREATE TRIGGER "futures_position_gains_update" AFTER UPDATE ON "futures_position"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_position_changed"();
CREATE TRIGGER "futures_position_gains_delete" AFTER DELETE ON "futures_position"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_position_changed"();
CREATE TRIGGER "futures_position_gains_truncate" AFTER TRUNCATE ON "futures_position"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_futures_position_changed"();

-- cost_basis_lot: a supplied lot prices the deposits at or after its acquisition date; rows are
-- only ever inserted (an import adds what is new) or deleted with their account or import.
CREATE FUNCTION "gains_cost_basis_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(acquired_at), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(acquired_at), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "cost_basis_lot_gains_insert" AFTER INSERT ON "cost_basis_lot"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_cost_basis_changed"();
CREATE TRIGGER "cost_basis_lot_gains_delete" AFTER DELETE ON "cost_basis_lot"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_cost_basis_changed"();
CREATE TRIGGER "cost_basis_lot_gains_truncate" AFTER TRUNCATE ON "cost_basis_lot"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_cost_basis_changed"();
