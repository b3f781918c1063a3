-- CreateEnum
CREATE TYPE "product_type" AS ENUM ('USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES');

-- CreateEnum
CREATE TYPE "hold_side" AS ENUM ('long', 'short', 'unknown');

-- CreateEnum
CREATE TYPE "pos_mode" AS ENUM ('one_way_mode', 'hedge_mode', 'unknown');

-- CreateEnum
CREATE TYPE "margin_mode" AS ENUM ('isolated', 'crossed', 'unknown');

-- CreateEnum
CREATE TYPE "transfer_sub_type" AS ENUM ('onchain', 'internal', 'fast', 'unknown');

-- CreateEnum
CREATE TYPE "transfer_status" AS ENUM ('pending', 'fail', 'success', 'unknown');

-- CreateEnum
CREATE TYPE "sync_stream" AS ENUM ('positions', 'spot', 'transfers');

-- CreateEnum
CREATE TYPE "sync_window_status" AS ENUM ('pending', 'running', 'done', 'failed');

-- CreateTable
CREATE TABLE "futures_position" (
    "account_id" UUID NOT NULL,
    "position_id" TEXT NOT NULL,
    "product_type" "product_type" NOT NULL,
    "symbol" TEXT NOT NULL,
    "margin_coin" TEXT NOT NULL,
    "hold_side" "hold_side" NOT NULL,
    "pos_mode" "pos_mode" NOT NULL,
    "margin_mode" "margin_mode" NOT NULL,
    "open_avg_price" DECIMAL NOT NULL,
    "close_avg_price" DECIMAL NOT NULL,
    "open_total_pos" DECIMAL NOT NULL,
    "close_total_pos" DECIMAL NOT NULL,
    "pnl" DECIMAL NOT NULL,
    "net_profit" DECIMAL NOT NULL,
    "total_funding" DECIMAL NOT NULL,
    "open_fee" DECIMAL NOT NULL,
    "close_fee" DECIMAL NOT NULL,
    "created_time" TIMESTAMPTZ(3) NOT NULL,
    "updated_time" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "futures_position_pkey" PRIMARY KEY ("account_id","position_id")
);

-- CreateTable
CREATE TABLE "spot_record" (
    "account_id" UUID NOT NULL,
    "record_id" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "spot_tax_type" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "fee" DECIMAL NOT NULL,
    "balance" DECIMAL NOT NULL,
    "biz_order_id" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spot_record_pkey" PRIMARY KEY ("account_id","record_id")
);

-- CreateTable
CREATE TABLE "broker_transfer" (
    "account_id" UUID NOT NULL,
    "tx_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "sub_uid" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "sub_type" "transfer_sub_type" NOT NULL,
    "amount" DECIMAL NOT NULL,
    "status" "transfer_status" NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "raw" JSONB NOT NULL,
    "unmapped" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "broker_transfer_pkey" PRIMARY KEY ("account_id","tx_id","type")
);

-- CreateTable
CREATE TABLE "net_flow_point" (
    "symbol" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "net_flow" DECIMAL NOT NULL,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "net_flow_point_pkey" PRIMARY KEY ("symbol","ts")
);

-- CreateTable
CREATE TABLE "open_interest_limit_snapshot" (
    "account_id" UUID NOT NULL,
    "symbol" TEXT NOT NULL,
    "category" "product_type" NOT NULL,
    "captured_at" TIMESTAMPTZ(3) NOT NULL,
    "single_user_limit" DECIMAL NOT NULL,
    "master_sub_limit" DECIMAL NOT NULL,
    "market_maker_limit" DECIMAL NOT NULL,
    "raw" JSONB NOT NULL,

    CONSTRAINT "open_interest_limit_snapshot_pkey" PRIMARY KEY ("account_id","symbol","category","captured_at")
);

-- CreateTable
CREATE TABLE "sync_window" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "stream" "sync_stream" NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "status" "sync_window_status" NOT NULL DEFAULT 'pending',
    "cursor" TEXT,
    "pages" INTEGER NOT NULL DEFAULT 0,
    "rows" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sync_window_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "futures_position_account_id_updated_time_idx" ON "futures_position"("account_id", "updated_time");

-- CreateIndex
CREATE INDEX "spot_record_account_id_ts_idx" ON "spot_record"("account_id", "ts");

-- CreateIndex
CREATE INDEX "spot_record_account_id_coin_ts_idx" ON "spot_record"("account_id", "coin", "ts");

-- CreateIndex
CREATE INDEX "broker_transfer_account_id_ts_idx" ON "broker_transfer"("account_id", "ts");

-- CreateIndex
CREATE INDEX "broker_transfer_account_id_status_idx" ON "broker_transfer"("account_id", "status");

-- CreateIndex
CREATE INDEX "sync_window_account_id_stream_status_idx" ON "sync_window"("account_id", "stream", "status");

-- CreateIndex
CREATE UNIQUE INDEX "sync_window_account_id_stream_scope_window_start_window_end_key" ON "sync_window"("account_id", "stream", "scope", "window_start", "window_end");

-- AddForeignKey
ALTER TABLE "futures_position" ADD CONSTRAINT "futures_position_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "spot_record" ADD CONSTRAINT "spot_record_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "broker_transfer" ADD CONSTRAINT "broker_transfer_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "open_interest_limit_snapshot" ADD CONSTRAINT "open_interest_limit_snapshot_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_window" ADD CONSTRAINT "sync_window_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;