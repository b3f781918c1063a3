-- CreateTable
CREATE TABLE "away_decision_import" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "file_name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "sources" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "supplied_by" TEXT NOT NULL,
    "withdrawn_at" TIMESTAMPTZ(3),
    "withdrawn_by" TEXT,
    "withdrawn_reason" TEXT,

    CONSTRAINT "away_decision_import_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "away_decision" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "import_id" BIGINT NOT NULL,
    "record_id" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "quantity" DECIMAL NOT NULL,
    "moved_at" TIMESTAMPTZ(3) NOT NULL,
    "decision" TEXT NOT NULL,
    "decided_at" TIMESTAMPTZ(3) NOT NULL,
    "source" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "away_decision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "away_decision_import_account_id_sha256_key" ON "away_decision_import"("account_id", "sha256");

-- CreateIndex
CREATE INDEX "away_decision_account_id_record_id_idx" ON "away_decision"("account_id", "record_id");

-- CreateIndex
CREATE UNIQUE INDEX "away_decision_account_id_record_id_import_id_key" ON "away_decision"("account_id", "record_id", "import_id");

-- AddForeignKey
ALTER TABLE "away_decision_import" ADD CONSTRAINT "away_decision_import_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "away_decision" ADD CONSTRAINT "away_decision_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "away_decision" ADD CONSTRAINT "away_decision_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "away_decision_import"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand below (schema.prisma cannot declare triggers), as in 20261128090046_supplied_proceeds:
-- the gains walk reads the accountant's decisions on coins away (a `lost` one is a disposal for
-- nothing at decided_at), so a decision added or removed, or its import withdrawn or restored, is
-- logged in gains_input_change dated by the earliest instant it changes, and stored checkpoints after
-- it stop matching. Decisions are only ever inserted (an import adds what is new) or deleted with
-- their account or import; withdrawal is an UPDATE of the import.
CREATE FUNCTION "gains_away_decision_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(least(moved_at, decided_at)), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(least(moved_at, decided_at)), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "away_decision_gains_insert" AFTER INSERT ON "away_decision"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_away_decision_changed"();
CREATE TRIGGER "away_decision_gains_delete" AFTER DELETE ON "away_decision"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_away_decision_changed"();
CREATE TRIGGER "away_decision_gains_truncate" AFTER TRUNCATE ON "away_decision"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_away_decision_changed"();

CREATE FUNCTION "gains_away_decision_withdrawn"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO gains_input_change (account_id, changed_from, source)
  SELECT d.account_id, min(least(d.moved_at, d.decided_at)), TG_TABLE_NAME
    FROM away_decision d
    JOIN new_rows n ON n.id = d.import_id
    JOIN old_rows o ON o.id = n.id
   WHERE n.withdrawn_at IS DISTINCT FROM o.withdrawn_at
   GROUP BY d.account_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER "away_decision_import_gains_update" AFTER UPDATE ON "away_decision_import"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_away_decision_withdrawn"();
