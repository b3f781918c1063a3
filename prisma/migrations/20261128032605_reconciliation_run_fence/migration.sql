-- AlterTable
ALTER TABLE "reconciliation_report" ADD COLUMN     "run_key" TEXT;

-- CreateTable
CREATE TABLE "reconciliation_run" (
    "run_key" TEXT NOT NULL,
    "token" INTEGER NOT NULL,
    "report_id" UUID,
    "error" TEXT,
    "retryable" BOOLEAN,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reconciliation_run_pkey" PRIMARY KEY ("run_key")
);

-- CreateIndex
CREATE UNIQUE INDEX "reconciliation_report_run_key_key" ON "reconciliation_report"("run_key");