import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';

import { schemaEngineAdapter } from './engine-adapter.ts';

/**
 * Prisma's schema engine as WebAssembly, so migrations run without the native
 * `schema-engine` binary that the Prisma CLI downloads (not reachable offline).
 * The package's own ESM entry imports a .wasm file, which Node 20 cannot do,
 * so the module is instantiated here by hand.
 */
export type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

// The lib settings hold no WebAssembly types (they come with the DOM lib), so
// the little of it used here is typed by hand.
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: Record<string, unknown>): Promise<{ exports: Record<string, unknown> }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let initialised: Promise<void> | undefined;

function initialiseWasm(): Promise<void> {
  initialised ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = path.join(
      path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
      'schema_engine_bg.wasm',
    );
    const module = await wasmApi.compile(await readFile(wasmPath));
    const instance = await wasmApi.instantiate(module, { './schema_engine_bg.js': bindings });
    bindings.__wbg_set_wasm(instance.exports as never);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  })();
  return initialised;
}

export interface EngineOptions {
  databaseUrl: string;
  schemaPath: string;
  /** Receives the engine's log lines (JSON text). */
  onLog?: (line: string) => void;
}

export async function openSchemaEngine(options: EngineOptions): Promise<SchemaEngine> {
  await initialiseWasm();
  const schema = await readFile(options.schemaPath, 'utf8');
  const adapter = bindMigrationAwareSqlAdapterFactory(schemaEngineAdapter(options.databaseUrl));
  return bindings.SchemaEngine.new(
    { datamodels: [[options.schemaPath, schema]] },
    (line: string) => options.onLog?.(line),
    adapter,
  );
}
