-- DropIndex
DROP INDEX "broker_transfer_account_id_status_idx";

-- DropIndex
DROP INDEX "spot_record_account_id_coin_ts_idx";