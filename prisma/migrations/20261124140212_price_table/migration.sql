-- CreateTable
CREATE TABLE "price" (
    "id" BIGSERIAL NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "base" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    "price" DECIMAL NOT NULL,
    "source" TEXT NOT NULL,
    "account_id" UUID,

    CONSTRAINT "price_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "price_time_idx" ON "price"("time");

-- CreateIndex
CREATE UNIQUE INDEX "price_trade_key" ON "price"("account_id", "base", "quote", "time", "source") WHERE (account_id IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "price_market_key" ON "price"("base", "quote", "time", "source") WHERE (account_id IS NULL);

-- AddForeignKey
ALTER TABLE "price" ADD CONSTRAINT "price_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;