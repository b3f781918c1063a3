-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "sync_stream" ADD VALUE 'margin-ledger';
ALTER TYPE "sync_stream" ADD VALUE 'p2p-ledger';

-- CreateTable
CREATE TABLE "margin_ledger_record" (
    "account_id" UUID NOT NULL,
    "margin_type" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "margin_tax_type" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "fee" DECIMAL NOT NULL,
    "total" DECIMAL NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "read_id" BIGINT,

    CONSTRAINT "margin_ledger_record_pkey" PRIMARY KEY ("account_id","record_id")
);

-- CreateTable
CREATE TABLE "p2p_ledger_record" (
    "account_id" UUID NOT NULL,
    "record_id" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "p2p_tax_type" TEXT NOT NULL,
    "total" DECIMAL NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "read_id" BIGINT,

    CONSTRAINT "p2p_ledger_record_pkey" PRIMARY KEY ("account_id","record_id")
);

-- CreateIndex
CREATE INDEX "margin_ledger_record_account_id_ts_idx" ON "margin_ledger_record"("account_id", "ts");

-- CreateIndex
CREATE INDEX "p2p_ledger_record_account_id_ts_idx" ON "p2p_ledger_record"("account_id", "ts");

-- AddForeignKey
ALTER TABLE "margin_ledger_record" ADD CONSTRAINT "margin_ledger_record_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "p2p_ledger_record" ADD CONSTRAINT "p2p_ledger_record_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;