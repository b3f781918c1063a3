-- CreateTable
CREATE TABLE "filing_figures" (
    "account_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "input_version" TEXT NOT NULL,
    "as_of" TIMESTAMPTZ(3) NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "compute_ms" INTEGER NOT NULL,
    "years" JSONB NOT NULL,

    CONSTRAINT "filing_figures_pkey" PRIMARY KEY ("account_id","method","input_version")
);

-- CreateIndex
CREATE INDEX "filing_figures_account_id_method_computed_at_idx" ON "filing_figures"("account_id", "method", "computed_at");

-- AddForeignKey
ALTER TABLE "filing_figures" ADD CONSTRAINT "filing_figures_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;