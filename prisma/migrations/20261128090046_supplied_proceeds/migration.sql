-- CreateTable
CREATE TABLE "proceeds_import" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "file_name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "sources" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "proceeds_import_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supplied_proceeds" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "import_id" BIGINT NOT NULL,
    "record_id" TEXT NOT NULL,
    "sold_at" TIMESTAMPTZ(3) NOT NULL,
    "proceeds" DECIMAL NOT NULL,
    "currency" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "supplied_proceeds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "proceeds_import_account_id_sha256_key" ON "proceeds_import"("account_id", "sha256");

-- CreateIndex
CREATE UNIQUE INDEX "supplied_proceeds_account_id_record_id_currency_key" ON "supplied_proceeds"("account_id", "record_id", "currency");

-- AddForeignKey
ALTER TABLE "proceeds_import" ADD CONSTRAINT "proceeds_import_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplied_proceeds" ADD CONSTRAINT "supplied_proceeds_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplied_proceeds" ADD CONSTRAINT "supplied_proceeds_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "proceeds_import"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- Written by hand below (schema.prisma cannot declare triggers), as in 20261128033103_cost_basis_import:
-- the gains walk reads the supplied proceeds of P2P sells, so a row added or removed is logged in
-- gains_input_change, dated by the sale's instant, and stored checkpoints after it stop matching.
-- Rows are only ever inserted (an import adds what is new) or deleted with their account or import.
CREATE FUNCTION "gains_supplied_proceeds_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source) VALUES (NULL, '-infinity', TG_TABLE_NAME);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(sold_at), TG_TABLE_NAME FROM new_rows GROUP BY account_id;
  ELSE
    INSERT INTO gains_input_change (account_id, changed_from, source)
    SELECT account_id, min(sold_at), TG_TABLE_NAME FROM old_rows GROUP BY account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "supplied_proceeds_gains_insert" AFTER INSERT ON "supplied_proceeds"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_supplied_proceeds_changed"();
CREATE TRIGGER "supplied_proceeds_gains_delete" AFTER DELETE ON "supplied_proceeds"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "gains_supplied_proceeds_changed"();
CREATE TRIGGER "supplied_proceeds_gains_truncate" AFTER TRUNCATE ON "supplied_proceeds"
  FOR EACH STATEMENT EXECUTE FUNCTION "gains_supplied_proceeds_changed"();
