-- AlterEnum
ALTER TYPE "recount_mode" ADD VALUE 'edge';