-- CreateTable
CREATE TABLE "page_fill_evidence" (
    "endpoint" TEXT NOT NULL,
    "page_limit" INTEGER NOT NULL,
    "last_full_page_at" TIMESTAMPTZ(3),
    "last_gap_at" TIMESTAMPTZ(3),

    CONSTRAINT "page_fill_evidence_pkey" PRIMARY KEY ("endpoint","page_limit")
);