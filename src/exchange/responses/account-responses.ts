import { z } from 'zod';

import { id, listedValue, optionalId, timestamp, tolerated } from './fields.ts';

const stringList = z
  .array(z.string())
  .nullish()
  .transform((list) => list ?? []);

/**
 * Permissions in an answer: any non-empty string. The exchange adds values
 * before its docs do, and refusing the answer of a create that took effect
 * would lose the created key's secret.
 */
const permissionList = z
  .array(listedValue)
  .nullish()
  .transform((list) => list ?? []);

export const subAccountApiKeyData = z.object({
  subAccountUid: id,
  subAccountApiKey: id,
  secretKey: id,
  permList: permissionList,
  label: z.string(),
  ipList: stringList,
});

export const batchCreateSubaccountAndApiKeyData = z.array(
  z.object({
    subAccountUid: id,
    subAccountName: id,
    label: z.string(),
    subAccountApiKey: id,
    secretKey: id,
    permList: permissionList,
    ipList: stringList,
  }),
);

export const createSubData = z.object({
  username: id,
  subUid: id,
  status: id,
  note: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  createdTime: timestamp,
  updatedTime: timestamp,
});

export const cancelSymbolOrderData = z.object({
  list: z
    .array(
      z.object({
        orderId: optionalId,
        clientOid: optionalId,
        // Present only for an order that could not be cancelled, e.g. 24056 notExisted.
        code: optionalId,
        msg: optionalId,
      }),
    )
    .nullish()
    .transform((list) => list ?? []),
});

export const batchCancelOrderData = z.object({
  successList: z
    .array(z.object({ orderId: optionalId, clientOid: optionalId }))
    .nullish()
    .transform((list) => list ?? []),
  // errorCode and errorMsg say why, not which order: the documentation's own samples (2023-2025)
  // leave errorCode out, so either may be missing (null, counted as drift); the ids are the core.
  failureList: z
    .array(
      z.object({
        orderId: optionalId,
        clientOid: optionalId,
        errorMsg: tolerated('failureList.errorMsg', z.string()),
        errorCode: tolerated('failureList.errorCode', z.string()),
      }),
    )
    .nullish()
    .transform((list) => list ?? []),
});

export type SubAccountApiKey = z.output<typeof subAccountApiKeyData>;
export type BatchCreatedSubAccount = z.output<typeof batchCreateSubaccountAndApiKeyData>[number];
export type CreatedSubAccount = z.output<typeof createSubData>;
export type CancelSymbolOrderResult = z.output<typeof cancelSymbolOrderData>;
export type BatchCancelOrderResult = z.output<typeof batchCancelOrderData>;
