-- CreateEnum
CREATE TYPE "recount_mode" AS ENUM ('none', 'recent', 'all');

-- CreateTable
CREATE TABLE "reconciliation_report" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "recount" "recount_mode" NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "checks" JSONB NOT NULL,
    "summary" TEXT NOT NULL,

    CONSTRAINT "reconciliation_report_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "reconciliation_report_account_id_started_at_idx" ON "reconciliation_report"("account_id", "started_at");