// Prisma CLI configuration. ledgerline applies migrations with its own
// WebAssembly-engine runner (`ledgerline migrate`, src/db/migrations.ts); this file serves
// `prisma generate` and users who run the Prisma CLI on a connected machine.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/ledgerline',
  },
});
