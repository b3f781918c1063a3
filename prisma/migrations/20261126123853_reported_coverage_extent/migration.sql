-- CreateTable
CREATE TABLE "reported_coverage_extent" (
    "account_id" UUID NOT NULL,
    "stream" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "start_ms" BIGINT NOT NULL,
    "end_ms" BIGINT NOT NULL,

    CONSTRAINT "reported_coverage_extent_pkey" PRIMARY KEY ("account_id","stream","scope")
);

-- AddForeignKey
ALTER TABLE "reported_coverage_extent" ADD CONSTRAINT "reported_coverage_extent_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Below: written by hand (Prisma's schema has no triggers, and a migration generates no data).
--
-- The widest extent every report's coverage check recorded, merged as each report is stored (in
-- its transaction, whoever inserts it). An extent whose bounds are not numbers is left out.
CREATE FUNCTION reported_coverage_extent_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reported_coverage_extent AS x (account_id, stream, scope, start_ms, end_ms)
  SELECT r.account_id, e->>'stream', e->>'scope', min((e->>'start')::bigint), max((e->>'end')::bigint)
    FROM new_reports r,
         jsonb_path_query(r.checks, '$[*] ? (@.name == "coverage").extents[*] ? (@.start.type() == "number" && @.end.type() == "number" && @.stream.type() == "string" && @.scope.type() == "string")') e
   GROUP BY 1, 2, 3
   ORDER BY 1, 2, 3
  ON CONFLICT (account_id, stream, scope) DO UPDATE
    SET start_ms = least(x.start_ms, EXCLUDED.start_ms), end_ms = greatest(x.end_ms, EXCLUDED.end_ms);
  RETURN NULL;
END $$;

CREATE TRIGGER reported_coverage_extent_insert AFTER INSERT ON reconciliation_report
  REFERENCING NEW TABLE AS new_reports
  FOR EACH STATEMENT EXECUTE FUNCTION reported_coverage_extent_after_insert();

-- The reports already stored (after the trigger, and over anything it wrote meanwhile).
INSERT INTO reported_coverage_extent AS x (account_id, stream, scope, start_ms, end_ms)
SELECT r.account_id, e->>'stream', e->>'scope', min((e->>'start')::bigint), max((e->>'end')::bigint)
  FROM reconciliation_report r,
       jsonb_path_query(r.checks, '$[*] ? (@.name == "coverage").extents[*] ? (@.start.type() == "number" && @.end.type() == "number" && @.stream.type() == "string" && @.scope.type() == "string")') e
 GROUP BY 1, 2, 3
ON CONFLICT (account_id, stream, scope) DO UPDATE
  SET start_ms = least(x.start_ms, EXCLUDED.start_ms), end_ms = greatest(x.end_ms, EXCLUDED.end_ms);
