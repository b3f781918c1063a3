-- CreateIndex
CREATE INDEX "spot_record_account_id_biz_order_id_idx" ON "spot_record"("account_id", "biz_order_id");