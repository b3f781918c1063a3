-- AlterEnum
ALTER TYPE "sync_stream" ADD VALUE 'futures-ledger';

-- CreateTable
CREATE TABLE "futures_ledger_record" (
    "account_id" UUID NOT NULL,
    "product_type" "product_type" NOT NULL,
    "record_id" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "margin_coin" TEXT NOT NULL,
    "future_tax_type" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "fee" DECIMAL NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "read_id" BIGINT,

    CONSTRAINT "futures_ledger_record_pkey" PRIMARY KEY ("account_id","record_id")
);

-- CreateIndex
CREATE INDEX "futures_ledger_record_account_id_ts_idx" ON "futures_ledger_record"("account_id", "ts");

-- AddForeignKey
ALTER TABLE "futures_ledger_record" ADD CONSTRAINT "futures_ledger_record_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;