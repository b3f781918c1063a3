-- AlterTable
ALTER TABLE "sync_window" ADD COLUMN     "failing_since" TIMESTAMPTZ(3);