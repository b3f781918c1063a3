-- AlterTable
ALTER TABLE "sync_window" ADD COLUMN     "ended_after_full_page" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "last_page_rows" INTEGER;