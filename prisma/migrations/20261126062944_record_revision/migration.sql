-- AlterTable
ALTER TABLE "broker_transfer" ADD COLUMN     "read_id" BIGINT;

-- AlterTable
ALTER TABLE "futures_position" ADD COLUMN     "read_id" BIGINT;

-- AlterTable
ALTER TABLE "spot_record" ADD COLUMN     "read_id" BIGINT;

-- AlterTable
ALTER TABLE "sync_window" ADD COLUMN     "read_id" BIGSERIAL NOT NULL;

-- CreateTable
CREATE TABLE "record_revision" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "stream" "sync_stream" NOT NULL,
    "record_key" JSONB NOT NULL,
    "old_raw" JSONB NOT NULL,
    "new_raw" JSONB NOT NULL,
    "replaced_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "window_id" UUID,
    "read_id" BIGINT NOT NULL,

    CONSTRAINT "record_revision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "record_revision_account_id_replaced_at_idx" ON "record_revision"("account_id", "replaced_at");

-- CreateIndex
CREATE INDEX "record_revision_window_id_idx" ON "record_revision"("window_id");

-- AddForeignKey
ALTER TABLE "record_revision" ADD CONSTRAINT "record_revision_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_revision" ADD CONSTRAINT "record_revision_window_id_fkey" FOREIGN KEY ("window_id") REFERENCES "sync_window"("id") ON DELETE SET NULL ON UPDATE CASCADE;