import { PrismaPg } from '@prisma/adapter-pg';

import { PrismaClient } from '../generated/prisma/client.ts';

export { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** A Prisma client on the pg driver adapter (Prisma 7 runs no query engine binary). */
export function createPrisma(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
