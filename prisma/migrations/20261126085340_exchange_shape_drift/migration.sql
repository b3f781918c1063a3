-- AlterTable
ALTER TABLE "broker_transfer" ALTER COLUMN "sub_type" DROP NOT NULL;

-- AlterTable
ALTER TABLE "futures_position" ALTER COLUMN "hold_side" DROP NOT NULL,
ALTER COLUMN "pos_mode" DROP NOT NULL,
ALTER COLUMN "margin_mode" DROP NOT NULL;

-- CreateTable
CREATE TABLE "exchange_shape_drift" (
    "endpoint" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "count" BIGINT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "alerted_at" TIMESTAMPTZ(3),

    CONSTRAINT "exchange_shape_drift_pkey" PRIMARY KEY ("endpoint","field","kind")
);