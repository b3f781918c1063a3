-- AlterTable
ALTER TABLE "gains_input_change" ADD COLUMN     "weight" BIGINT NOT NULL DEFAULT 1;
-- Written by hand below (schema.prisma cannot declare triggers): the spot_record trigger of
-- 20261126120654_gains_checkpoint, made cheap on the write path (issue 36). It logs, per statement
-- and account, the same instant as before (the earliest changed row, or the earliest stored leg of
-- one of their orders when that is earlier), but probes the orders only when they could have one:
-- a stored leg earlier than every changed row is a stored row of the account earlier than that
-- instant, so when the (account_id, ts) index has none (a backfill storing its windows newest
-- first, a first COPY) the statement's minimum is the instant and no order is probed. Otherwise
-- each order is one probe of the (account_id, biz_order_id) index for a leg before that minimum
-- (enable_seqscan off and OFFSET 0 as before: a plan cached while the table was small must not
-- scan it once per order). JIT off: a big statement's plan (a probe per order of a 200,000-row
-- COPY) costs enough to be JIT-compiled, about a second of compiling for a plan that runs once.
CREATE OR REPLACE FUNCTION "gains_spot_record_changed"() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off SET jit = off AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', 'spot_record');
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT f.account_id,
           CASE WHEN EXISTS (SELECT 1 FROM spot_record s WHERE s.account_id = f.account_id AND s.ts < f.ts)
                THEN least(f.ts, (
                  SELECT min(o.ts)
                    FROM (SELECT DISTINCT c.biz_order_id FROM new_rows c
                           WHERE c.account_id = f.account_id AND c.biz_order_id <> '') c
                    CROSS JOIN LATERAL (
                      SELECT min(l.ts) AS ts FROM (
                        SELECT s.ts FROM spot_record s
                         WHERE s.account_id = f.account_id AND s.biz_order_id = c.biz_order_id AND s.ts < f.ts
                        OFFSET 0
                      ) l
                    ) o))
                ELSE f.ts END,
           'spot_record'
      FROM (SELECT account_id, min(ts) AS ts FROM new_rows GROUP BY account_id) f;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT f.account_id,
           CASE WHEN EXISTS (SELECT 1 FROM spot_record s WHERE s.account_id = f.account_id AND s.ts < f.ts)
                THEN least(f.ts, (
                  SELECT min(o.ts)
                    FROM (SELECT DISTINCT c.biz_order_id FROM old_rows c
                           WHERE c.account_id = f.account_id AND c.biz_order_id <> '') c
                    CROSS JOIN LATERAL (
                      SELECT min(l.ts) AS ts FROM (
                        SELECT s.ts FROM spot_record s
                         WHERE s.account_id = f.account_id AND s.biz_order_id = c.biz_order_id AND s.ts < f.ts
                        OFFSET 0
                      ) l
                    ) o))
                ELSE f.ts END,
           'spot_record'
      FROM (SELECT account_id, min(ts) AS ts FROM old_rows GROUP BY account_id) f;
  ELSE
    WITH changed AS (
      SELECT account_id, biz_order_id, ts FROM (
        (SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM new_rows
         EXCEPT SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM old_rows)
        UNION ALL
        (SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM old_rows
         EXCEPT SELECT account_id, record_id, coin, spot_tax_type, amount, fee, biz_order_id, ts FROM new_rows)
      ) d
    )
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT f.account_id,
           CASE WHEN EXISTS (SELECT 1 FROM spot_record s WHERE s.account_id = f.account_id AND s.ts < f.ts)
                THEN least(f.ts, (
                  SELECT min(o.ts)
                    FROM (SELECT DISTINCT c.biz_order_id FROM changed c
                           WHERE c.account_id = f.account_id AND c.biz_order_id <> '') c
                    CROSS JOIN LATERAL (
                      SELECT min(l.ts) AS ts FROM (
                        SELECT s.ts FROM spot_record s
                         WHERE s.account_id = f.account_id AND s.biz_order_id = c.biz_order_id AND s.ts < f.ts
                        OFFSET 0
                      ) l
                    ) o))
                ELSE f.ts END,
           'spot_record'
      FROM (SELECT account_id, min(ts) AS ts FROM changed GROUP BY account_id) f;
  END IF;
  RETURN NULL;
END
$$;
