-- AlterTable
ALTER TABLE "sync_window" ADD COLUMN     "ended_after_full_page" BOOLEAN NOT NULL DEFAULT false;