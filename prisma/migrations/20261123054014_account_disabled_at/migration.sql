-- AlterTable
ALTER TABLE "account" ADD COLUMN     "disabled_at" TIMESTAMPTZ(3);