-- CreateEnum
CREATE TYPE "management_command" AS ENUM ('subaccount_create', 'subaccount_batch_create', 'apikey_create', 'apikey_modify', 'orders_cancel_all', 'orders_batch_cancel');

-- CreateEnum
CREATE TYPE "management_status" AS ENUM ('pending', 'running', 'succeeded', 'partial', 'failed', 'ambiguous');

-- CreateEnum
CREATE TYPE "management_request_purpose" AS ENUM ('send', 'probe', 'repeat');

-- CreateEnum
CREATE TYPE "management_request_status" AS ENUM ('sent', 'succeeded', 'failed', 'ambiguous');

-- CreateEnum
CREATE TYPE "order_cancel_result" AS ENUM ('pending', 'cancelled', 'failed', 'not_open', 'unknown');

-- CreateEnum
CREATE TYPE "sub_account_source" AS ENUM ('create_sub', 'batch_create', 'observed');

-- CreateTable
CREATE TABLE "management_action" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "command" "management_command" NOT NULL,
    "parameters" JSONB NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "secrets_enc" TEXT,
    "status" "management_status" NOT NULL DEFAULT 'pending',
    "result" JSONB,
    "error" TEXT,
    "resolution" TEXT,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "management_action_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "management_request" (
    "action_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "step" TEXT NOT NULL,
    "purpose" "management_request_purpose" NOT NULL,
    "endpoint" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" "management_request_status" NOT NULL DEFAULT 'sent',
    "error_code" TEXT,
    "error_message" TEXT,
    "response" JSONB,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "answered_at" TIMESTAMPTZ(3),

    CONSTRAINT "management_request_pkey" PRIMARY KEY ("action_id","seq")
);

-- CreateTable
CREATE TABLE "order_cancel_outcome" (
    "action_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "symbol" TEXT,
    "order_id" TEXT,
    "client_oid" TEXT,
    "request_seq" INTEGER,
    "result" "order_cancel_result" NOT NULL DEFAULT 'pending',
    "error_code" TEXT,
    "error_msg" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_cancel_outcome_pkey" PRIMARY KEY ("action_id","seq")
);

-- CreateTable
CREATE TABLE "sub_account" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "sub_uid" TEXT,
    "name" TEXT,
    "name_key" TEXT,
    "email" TEXT,
    "note" TEXT,
    "status" TEXT,
    "source" "sub_account_source" NOT NULL,
    "keys_without_id" INTEGER NOT NULL DEFAULT 0,
    "exchange_created_at" TIMESTAMPTZ(3),
    "created_by_action_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sub_account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sub_account_api_key" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "sub_account_uid" TEXT NOT NULL,
    "api_key" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "perm_list" TEXT[],
    "ip_list" TEXT[],
    "secret_enc" TEXT,
    "secret_revealed_at" TIMESTAMPTZ(3),
    "created_by_action_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sub_account_api_key_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "management_action_idempotency_key_key" ON "management_action"("idempotency_key");

-- CreateIndex
CREATE INDEX "management_action_account_id_created_at_idx" ON "management_action"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "management_action_status_idx" ON "management_action"("status");

-- CreateIndex
CREATE INDEX "order_cancel_outcome_action_id_result_idx" ON "order_cancel_outcome"("action_id", "result");

-- CreateIndex
CREATE UNIQUE INDEX "sub_account_account_id_sub_uid_key" ON "sub_account"("account_id", "sub_uid");

-- CreateIndex
CREATE UNIQUE INDEX "sub_account_account_id_name_key_key" ON "sub_account"("account_id", "name_key");

-- CreateIndex
CREATE INDEX "sub_account_api_key_account_id_sub_account_uid_idx" ON "sub_account_api_key"("account_id", "sub_account_uid");

-- CreateIndex
CREATE UNIQUE INDEX "sub_account_api_key_account_id_api_key_key" ON "sub_account_api_key"("account_id", "api_key");

-- AddForeignKey
ALTER TABLE "management_request" ADD CONSTRAINT "management_request_action_id_fkey" FOREIGN KEY ("action_id") REFERENCES "management_action"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_cancel_outcome" ADD CONSTRAINT "order_cancel_outcome_action_id_fkey" FOREIGN KEY ("action_id") REFERENCES "management_action"("id") ON DELETE CASCADE ON UPDATE CASCADE;