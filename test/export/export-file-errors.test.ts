import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ExportFileError } from '../../src/export/export-file-error.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import type { OpenFile } from '../../src/export/file-sink.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot } from './seed.ts';

/**
 * A disk that fills while an export writes, on any machine: the temporary file is created, then
 * written through /dev/full, whose every write fails with the kernel's ENOSPC, naming no path.
 * (Shown by hand on a 64 KB tmpfs too.)
 */
const db = useTestDatabase('exportfserr');
let dir: string;
let account: { id: string; name: string };

function fullDisk(fails: (file: string) => boolean): OpenFile {
  return async (file) => {
    const handle = await open(file, 'wx');
    if (!fails(file)) return handle;
    await handle.close();
    return open('/dev/full', 'w');
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'll-export-fs-'));
  account = { id: await insertAccount(db.url, 'disk'), name: 'disk' };
  await insertSpot(db.url, account.id, [
    { recordId: 'd1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', ts: '2027-01-02T10:00:00Z' },
    // One leg of an order only: a row of the unpaired side file.
    { recordId: 'd2', coin: 'ETH', spotTaxType: 'Buy', amount: '2', bizOrderId: 'lone', ts: '2027-01-03T10:00:00Z' },
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request = (report: string) =>
  parseExportRequest({ report, accountId: account.id, from: '2027-01-01', to: '2027-01-31', tz: 'UTC' });

describe('exports on a failing disk', () => {
  it('a full disk is an ExportFileError naming the file and ENOSPC (retryable), and leaves no file at all', async () => {
    const out = path.join(dir, 'full', 'ledger.csv');
    const failed = exportToFile({
      databaseUrl: db.url,
      request: request('spot-ledger'),
      account,
      csvPath: out,
      openFile: fullDisk((file) => !file.includes('.unpaired.')),
    });
    await expect(failed).rejects.toThrow(ExportFileError);
    const error = (await failed.catch((e: unknown) => e)) as ExportFileError;
    expect(error.toOneLine()).toBe(`ExportFileError: cannot write ${out}: no space left on device (ENOSPC)`);
    expect([error.errno, error.retryable]).toEqual(['ENOSPC', true]);
    expect(await readdir(path.dirname(out))).toEqual([]);
  });

  it('a side file that cannot be written fails the export with its name, instead of crashing the process', async () => {
    const out = path.join(dir, 'side', 'koinly.csv');
    const failed = exportToFile({
      databaseUrl: db.url,
      request: request('koinly'),
      account,
      csvPath: out,
      openFile: fullDisk((file) => file.includes('.unpaired.')),
    });
    await expect(failed).rejects.toThrow(
      `cannot write ${path.join(dir, 'side', 'koinly.unpaired.csv')}: no space left on device (ENOSPC)`,
    );
    expect(await readdir(path.dirname(out))).toEqual([]);
  });

  it('a manifest that cannot be written fails the export with its name, and takes nothing into place', async () => {
    const out = path.join(dir, 'manifest', 'ledger.csv');
    await expect(
      exportToFile({
        databaseUrl: db.url,
        request: request('spot-ledger'),
        account,
        csvPath: out,
        openFile: fullDisk((file) => file.includes('.manifest.json')),
      }),
    ).rejects.toThrow(
      `cannot write ${path.join(dir, 'manifest', 'ledger.manifest.json')}: no space left on device (ENOSPC)`,
    );
    expect(await readdir(path.dirname(out))).toEqual([]);
  });
});
