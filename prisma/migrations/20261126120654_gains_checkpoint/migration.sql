-- CreateTable
CREATE TABLE "gains_checkpoint" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "tolerance_ms" BIGINT NOT NULL,
    "walk_version" TEXT NOT NULL,
    "as_of" TIMESTAMPTZ(3) NOT NULL,
    "next_seq" BIGINT NOT NULL,
    "input_count" BIGINT NOT NULL,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gains_checkpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gains_lot_checkpoint" (
    "checkpoint_id" BIGINT NOT NULL,
    "coin" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "held" DECIMAL NOT NULL,
    "pooled_quantity" DECIMAL NOT NULL,
    "pooled_cost" DECIMAL NOT NULL,
    "lots" JSONB NOT NULL,

    CONSTRAINT "gains_lot_checkpoint_pkey" PRIMARY KEY ("checkpoint_id","coin")
);

-- CreateTable
CREATE TABLE "gains_input_change" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID,
    "changed_from" TIMESTAMPTZ(3) NOT NULL,
    "source" TEXT NOT NULL,
    "logged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gains_input_change_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gains_checkpoint_account_id_method_currency_tolerance_ms_wa_key" ON "gains_checkpoint"("account_id", "method", "currency", "tolerance_ms", "walk_version", "as_of");

-- CreateIndex
CREATE INDEX "gains_input_change_account_id_changed_from_idx" ON "gains_input_change"("account_id", "changed_from");

-- AddForeignKey
ALTER TABLE "gains_checkpoint" ADD CONSTRAINT "gains_checkpoint_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gains_lot_checkpoint" ADD CONSTRAINT "gains_lot_checkpoint_checkpoint_id_fkey" FOREIGN KEY ("checkpoint_id") REFERENCES "gains_checkpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand below (schema.prisma cannot declare triggers): every change to an input of
-- realized gains is logged in the changing statement's own transaction, so a reader sees a change
-- and its log row together or neither (src/accounting/gains/gains-checkpoint-store.ts says why a
-- count of these rows detects every change a checkpoint depends on).
--
-- spot_record: the columns the ledger entries are built from (ledger-entries.ts). The instant
-- logged is the earliest of the changed rows and of every stored leg of their orders: a trade is
-- dated by its order's earliest leg, so a late leg dated after a checkpoint can still change an
-- entry before it. Rows met again unchanged (a re-read stamping read_id) log nothing.
-- Each order is one probe of the (account_id, biz_order_id) index, whatever the statistics say: a
-- plan cached while the table was still small (a first backfill's first pages) scanned the whole
-- table once per order (150 ms a 500-record page instead of 7), and min(ts) alone may be planned
-- as a walk of (account_id, ts) from the account's first record. Hence enable_seqscan off for
-- this function only, and OFFSET 0, which keeps min() from that rewrite.
CREATE FUNCTION "gains_spot_record_changed"() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', 'spot_record');
  ELSIF TG_OP = 'INSERT' THEN
    WITH changed AS (
      SELECT account_id, biz_order_id, min(ts) AS ts FROM new_rows GROUP BY account_id, biz_order_id
    )
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT c.account_id, min(least(c.ts, o.ts)), 'spot_record'
      FROM changed c
      LEFT JOIN LATERAL (
        SELECT min(l.ts) AS ts FROM (
          SELECT s.ts FROM spot_record s
           WHERE c.biz_order_id <> '' AND s.account_id = c.account_id AND s.biz_order_id = c.biz_order_id
          OFFSET 0
        ) l
      ) o ON true
     GROUP BY c.account_id;
  ELSIF TG_OP = 'DELETE' THEN
    WITH changed AS (
      SELECT account_id, biz_order_id, min(ts) AS ts FROM old_rows GROUP BY account_id, biz_order_id
    )
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT c.account_id, min(least(c.ts, o.ts)), 'spot_record'
      FROM changed c
      LEFT JOIN LATERAL (
        SELECT min(l.ts) AS ts FROM (
          SELECT s.ts FROM spot_record s
           WHERE c.biz_order_id <> '' AND s.account_id = c.account_id AND s.biz_order_id = c.biz_order_id
          OFFSET 0
        ) l
      ) o ON true
     GROUP BY c.account_id;
  ELSE
    WITH after_rows AS (
      SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM new_rows
    ), before_rows AS (
      SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM old_rows
    ), changed AS (
      SELECT account_id, biz_order_id, min(ts) AS ts
        FROM ((TABLE after_rows EXCEPT TABLE before_rows) UNION ALL (TABLE before_rows EXCEPT TABLE after_rows)) d
       GROUP BY account_id, biz_order_id
    )
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT c.account_id, min(least(c.ts, o.ts)), 'spot_record'
      FROM changed c
      LEFT JOIN LATERAL (
        SELECT min(l.ts) AS ts FROM (
          SELECT s.ts FROM spot_record s
           WHERE c.biz_order_id <> '' AND s.account_id = c.account_id AND s.biz_order_id = c.biz_order_id
          OFFSET 0
        ) l
      ) o ON true
     GROUP BY c.account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "spot_record_gains_insert" AFTER INSERT ON "spot_record"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_spot_record_changed"();
CREATE TRIGGER "spot_record_gains_update" AFTER UPDATE ON "spot_record"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_spot_record_changed"();
CREATE TRIGGER "spot_record_gains_delete" AFTER DELETE ON "spot_record"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_spot_record_changed"();
CREATE TRIGGER "spot_record_gains_truncate" AFTER TRUNCATE ON "spot_record"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_spot_record_changed"();

-- price: a point prices the instants from its time on (within the tolerance), so the instant
-- logged is the earliest changed point's time; an imported point (account_id null) is every
-- account's. Points rewritten unchanged (the trade-price refresh's upsert) log nothing.
CREATE FUNCTION "gains_price_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', 'price');
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(time), 'price' FROM new_rows GROUP BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(time), 'price' FROM old_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(time), 'price'
      FROM ((SELECT account_id, time, base, quote, price, source FROM new_rows
             EXCEPT SELECT account_id, time, base, quote, price, source FROM old_rows)
            UNION ALL
            (SELECT account_id, time, base, quote, price, source FROM old_rows
             EXCEPT SELECT account_id, time, base, quote, price, source FROM new_rows)) d
     GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "price_gains_insert" AFTER INSERT ON "price"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_price_changed"();
CREATE TRIGGER "price_gains_update" AFTER UPDATE ON "price"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_price_changed"();
CREATE TRIGGER "price_gains_delete" AFTER DELETE ON "price"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_price_changed"();
CREATE TRIGGER "price_gains_truncate" AFTER TRUNCATE ON "price"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_price_changed"();
