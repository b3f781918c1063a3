-- CreateIndex
CREATE INDEX "spot_record_futures_transfer_idx" ON "spot_record"("account_id", "ts") WHERE (spot_tax_type = ANY (ARRAY['Transfer in'::text, 'Transfer out'::text]));