-- CreateTable
CREATE TABLE "lost_window" (
    "window_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "stream" "sync_stream" NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "readable_from" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lost_window_pkey" PRIMARY KEY ("window_id")
);

-- CreateIndex
CREATE INDEX "lost_window_account_id_detected_at_idx" ON "lost_window"("account_id", "detected_at");

-- AddForeignKey
ALTER TABLE "lost_window" ADD CONSTRAINT "lost_window_window_id_fkey" FOREIGN KEY ("window_id") REFERENCES "sync_window"("id") ON DELETE CASCADE ON UPDATE CASCADE;