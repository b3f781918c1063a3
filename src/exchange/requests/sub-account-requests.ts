import { z } from 'zod';

import {
  BATCH_PERMISSIONS,
  ipList,
  label,
  nonEmpty,
  note,
  passphrase,
  PERMISSIONS,
  permList,
  subAccountName,
  username,
} from './primitives.ts';

export const createVirtualSubaccountApiKeyRequest = z.strictObject({
  subAccountUid: nonEmpty('a sub-account uid'),
  passphrase,
  label,
  ipList: ipList.optional(),
  permList: permList(PERMISSIONS),
});

export const modifyVirtualSubaccountApiKeyRequest = z.strictObject({
  subAccountUid: nonEmpty('a sub-account uid'),
  subAccountApiKey: nonEmpty('a sub-account API key'),
  passphrase,
  label,
  // Absent: the whitelist is emptied. The caller must pass the full list it wants.
  ipList: ipList.optional(),
  // Absent: permissions kept; empty: permissions removed.
  permList: permList(PERMISSIONS).optional(),
});

const batchCreateItem = z.strictObject({
  subAccountName,
  passphrase,
  label,
  ipList: ipList.optional(),
  permList: permList(BATCH_PERMISSIONS),
});

export const batchCreateSubaccountAndApiKeyRequest = z
  .array(batchCreateItem, { error: 'must be a list of sub-accounts to create' })
  .min(1, { error: 'must have 1 to 5 items' })
  .max(5, { error: 'must have 1 to 5 items' })
  .superRefine((items, ctx) => {
    // All-or-nothing on the exchange: one duplicate name rejects the whole batch (40071).
    // Names are compared ignoring case, as the exchange does.
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const name = item.subAccountName.toLowerCase();
      if (seen.has(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'subAccountName'],
          message: 'must not repeat a subAccountName of the same batch',
        });
      }
      seen.add(name);
    });
  });

export const createSubRequest = z.strictObject({
  username,
  // The spec lists classic, but only unified sub-accounts can be created (docs/exchange-api.md §7.4).
  accountMode: z
    .literal('unified', { error: 'must be unified or absent (classic sub-accounts cannot be created)' })
    .optional(),
  note: note.optional(),
});

export type CreateVirtualSubaccountApiKeyParams = z.input<typeof createVirtualSubaccountApiKeyRequest>;
export type ModifyVirtualSubaccountApiKeyParams = z.input<typeof modifyVirtualSubaccountApiKeyRequest>;
export type BatchCreateSubaccountAndApiKeyParams = z.input<typeof batchCreateSubaccountAndApiKeyRequest>;
export type CreateSubParams = z.input<typeof createSubRequest>;
