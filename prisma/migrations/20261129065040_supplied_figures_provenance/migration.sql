-- DropIndex
DROP INDEX "cost_basis_import_account_id_sha256_key";

-- DropIndex
DROP INDEX "cost_basis_lot_account_id_coin_acquired_at_quantity_cost_cu_key";

-- DropIndex
DROP INDEX "proceeds_import_account_id_sha256_key";

-- DropIndex
DROP INDEX "supplied_proceeds_account_id_record_id_currency_key";

-- AlterTable
-- Edited by hand: imports made before provenance was recorded came from the command line.
ALTER TABLE "cost_basis_import" ADD COLUMN     "supplied_by" TEXT NOT NULL DEFAULT 'cli:unrecorded',
ADD COLUMN     "withdrawn_at" TIMESTAMPTZ(3),
ADD COLUMN     "withdrawn_by" TEXT,
ADD COLUMN     "withdrawn_reason" TEXT;

-- AlterTable
-- Edited by hand: imports made before provenance was recorded came from the command line.
ALTER TABLE "proceeds_import" ADD COLUMN     "supplied_by" TEXT NOT NULL DEFAULT 'cli:unrecorded',
ADD COLUMN     "withdrawn_at" TIMESTAMPTZ(3),
ADD COLUMN     "withdrawn_by" TEXT,
ADD COLUMN     "withdrawn_reason" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "cost_basis_import_live_sha256_key" ON "cost_basis_import"("account_id", "sha256") WHERE (withdrawn_at IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "cost_basis_lot_figures_import_key" ON "cost_basis_lot"("account_id", "coin", "acquired_at", "quantity", "cost", "currency", "source", "import_id");

-- CreateIndex
CREATE UNIQUE INDEX "proceeds_import_live_sha256_key" ON "proceeds_import"("account_id", "sha256") WHERE (withdrawn_at IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "supplied_proceeds_figure_import_key" ON "supplied_proceeds"("account_id", "record_id", "currency", "import_id");

-- Written by hand below (schema.prisma cannot declare these), as in 20261128033103_cost_basis_import.
ALTER TABLE "cost_basis_import" ALTER COLUMN "supplied_by" DROP DEFAULT;
ALTER TABLE "proceeds_import" ALTER COLUMN "supplied_by" DROP DEFAULT;

-- The gains walks read only the lots and proceeds of imports not withdrawn, so withdrawing one (or
-- taking a withdrawal back by hand) changes their inputs from its earliest lot's acquisition, or
-- its earliest sale: logged in gains_input_change in the same transaction, and the stored
-- checkpoints after that instant stop matching (gains-checkpoint-store.ts), as an import's rows do.
CREATE FUNCTION "gains_cost_basis_import_withdrawn"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO gains_input_change (account_id, changed_from, source)
  SELECT l.account_id, min(l.acquired_at), TG_TABLE_NAME
    FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN cost_basis_lot l ON l.import_id = n.id
   WHERE n.withdrawn_at IS DISTINCT FROM o.withdrawn_at
   GROUP BY l.account_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER "cost_basis_import_gains_withdrawn" AFTER UPDATE ON "cost_basis_import"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION "gains_cost_basis_import_withdrawn"();

CREATE FUNCTION "gains_proceeds_import_withdrawn"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO gains_input_change (account_id, changed_from, source)
  SELECT p.account_id, min(p.sold_at), TG_TABLE_NAME
    FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN supplied_proceeds p ON p.import_id = n.id
   WHERE n.withdrawn_at IS DISTINCT FROM o.withdrawn_at
   GROUP BY p.account_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER "proceeds_import_gains_withdrawn" AFTER UPDATE ON "proceeds_import"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION "gains_proceeds_import_withdrawn"();
