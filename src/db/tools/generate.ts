import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * `prisma generate`, offline. The Prisma CLI first tries to download its
 * native schema engine, which generate never executes; naming any existing
 * file as that binary lets generate run without the network. On a machine
 * that names a real binary already, that one is used.
 */
const placeholder = path.join(os.tmpdir(), 'ledgerline-no-schema-engine');
if (!existsSync(placeholder)) writeFileSync(placeholder, '');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= placeholder;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve('prisma/package.json')), 'build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exitCode = result.status ?? 1;
