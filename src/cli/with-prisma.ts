import type { Config } from '../config/config.ts';
import { createPrisma, type PrismaClient } from '../db/prisma.ts';

/** Runs a command body with a Prisma client that is always disconnected afterwards. */
export async function withPrisma<T>(config: Config, body: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const prisma = createPrisma(config.databaseUrl);
  try {
    return await body(prisma);
  } finally {
    await prisma.$disconnect();
  }
}
