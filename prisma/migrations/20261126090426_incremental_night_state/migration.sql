-- AlterTable
ALTER TABLE "reconciliation_report" ADD COLUMN     "full" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "balance_checkpoint" (
    "account_id" UUID NOT NULL,
    "coin" TEXT NOT NULL,
    "first_record_id" TEXT NOT NULL,
    "first_ts" TIMESTAMPTZ(3) NOT NULL,
    "record_id" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "balance" DECIMAL NOT NULL,
    "broken" BOOLEAN NOT NULL DEFAULT false,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "balance_checkpoint_pkey" PRIMARY KEY ("account_id","coin")
);

-- CreateTable
CREATE TABLE "trade_price_refresh" (
    "account_id" UUID NOT NULL,
    "refreshed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "trade_price_refresh_pkey" PRIMARY KEY ("account_id")
);

-- AddForeignKey
ALTER TABLE "balance_checkpoint" ADD CONSTRAINT "balance_checkpoint_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trade_price_refresh" ADD CONSTRAINT "trade_price_refresh_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;