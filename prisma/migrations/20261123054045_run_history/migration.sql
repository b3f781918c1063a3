-- CreateEnum
CREATE TYPE "run_kind" AS ENUM ('sync', 'reconciliation', 'export');

-- CreateEnum
CREATE TYPE "run_status" AS ENUM ('succeeded', 'partial', 'failed');

-- CreateTable
CREATE TABLE "run" (
    "id" UUID NOT NULL,
    "kind" "run_kind" NOT NULL,
    "status" "run_status" NOT NULL,
    "account_id" UUID,
    "job_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "rows" INTEGER,
    "windows" INTEGER,
    "failed_windows" INTEGER,
    "checks_passed" INTEGER,
    "checks_failed" INTEGER,
    "failures" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "run_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_finished_at_idx" ON "run"("finished_at");

-- CreateIndex
CREATE INDEX "run_account_id_kind_finished_at_idx" ON "run"("account_id", "kind", "finished_at");