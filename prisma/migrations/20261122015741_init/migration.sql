-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "account" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "uid" TEXT,
    "base_url" TEXT NOT NULL,
    "api_key" TEXT NOT NULL,
    "secret_enc" TEXT NOT NULL,
    "passphrase_enc" TEXT NOT NULL,
    "is_broker_parent" BOOLEAN NOT NULL DEFAULT false,
    "is_unified_account" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "account_name_key" ON "account"("name");
