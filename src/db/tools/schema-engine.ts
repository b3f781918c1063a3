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

/**
 * The engine arms a 10 s timer (its migration lock's timeout) and, having no clearTimeout
 * import, never disarms it: a finished `ledgerline migrate` stayed alive 10 s more. Every timer
 * it sets is kept here, and cleared once no engine is open (a timer cleared while another engine
 * is open could be one that engine still waits on).
 */
const engineTimers = new Set<NodeJS.Timeout>();
let openEngines = 0;

function trackingTimers(imports: Record<string, unknown>): Record<string, unknown> {
  const tracked: Record<string, unknown> = { ...imports };
  for (const [name, value] of Object.entries(imports)) {
    if (!name.startsWith('__wbg_setTimeout_') || typeof value !== 'function') continue;
    tracked[name] = (callback: () => void, ms: number) => {
      const timer = setTimeout(() => {
        engineTimers.delete(timer);
        callback();
      }, ms >>> 0);
      engineTimers.add(timer);
      return timer;
    };
  }
  return tracked;
}

function clearEngineTimersWhenIdle(): void {
  if (openEngines > 0) return;
  for (const timer of engineTimers) clearTimeout(timer);
  engineTimers.clear();
}

function initialiseWasm(): Promise<void> {
  initialised ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = path.join(
      path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
      'schema_engine_bg.wasm',
    );
    const module = await wasmApi.compile(await readFile(wasmPath));
    const instance = await wasmApi.instantiate(module, { './schema_engine_bg.js': trackingTimers(bindings) });
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

/**
 * Opens the engine, runs `use` and closes it again: the wasm engine's memory and the adapter's
 * pg pool (which the engine itself leaves open), so a one-shot command exits as soon as it is done.
 */
export async function withSchemaEngine<T>(
  options: EngineOptions,
  use: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  await initialiseWasm();
  const schema = await readFile(options.schemaPath, 'utf8');
  const factory = schemaEngineAdapter(options.databaseUrl);
  openEngines += 1;
  try {
    const engine = await bindings.SchemaEngine.new(
      { datamodels: [[options.schemaPath, schema]] },
      (line: string) => options.onLog?.(line),
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    try {
      return await use(engine);
    } finally {
      engine.free();
    }
  } finally {
    openEngines -= 1;
    clearEngineTimersWhenIdle();
    await factory.disposeAll();
  }
}
