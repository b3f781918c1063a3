import type {
  BatchCreateSubaccountAndApiKeyParams,
  CancelSymbolOrderParams,
  CreateSubParams,
  CreateVirtualSubaccountApiKeyParams,
  ModifyVirtualSubaccountApiKeyParams,
} from '../exchange/index.ts';
import type { ManagementCommand } from '../generated/prisma/enums.ts';

export type BatchCreateItem = BatchCreateSubaccountAndApiKeyParams[number];

/** One order to cancel: its spot symbol and exactly one of its identifiers. */
export interface OrderRef {
  symbol: string;
  orderId?: string;
  clientOid?: string;
}

/**
 * What an operator (or another part of ledgerline) asks for, passphrases
 * included. It is split at once into parameters that may be stored and shown
 * (no secrets) and the secrets, which are only ever stored sealed.
 */
export type ActionInput =
  | { command: 'subaccount_create'; params: CreateSubParams }
  | { command: 'subaccount_batch_create'; params: { items: BatchCreateItem[] } }
  | { command: 'apikey_create'; params: CreateVirtualSubaccountApiKeyParams }
  | { command: 'apikey_modify'; params: ModifyVirtualSubaccountApiKeyParams }
  | { command: 'orders_cancel_all'; params: CancelSymbolOrderParams }
  | { command: 'orders_batch_cancel'; params: { orders: OrderRef[] } };

export type Command = ManagementCommand & ActionInput['command'];

export const REDACTED = '[redacted]';

/** Parameters without their passphrases, and the passphrases in order. */
export interface SplitInput {
  command: Command;
  params: Record<string, unknown>;
  secrets: string[];
}

export function splitSecrets(input: ActionInput): SplitInput {
  switch (input.command) {
    case 'subaccount_batch_create': {
      const items = input.params.items.map(({ passphrase: _passphrase, ...rest }) => rest);
      return {
        command: input.command,
        params: { items },
        secrets: input.params.items.map((item) => item.passphrase),
      };
    }
    case 'apikey_create':
    case 'apikey_modify': {
      const { passphrase, ...rest } = input.params;
      return { command: input.command, params: rest, secrets: [passphrase] };
    }
    default:
      return { command: input.command, params: { ...input.params }, secrets: [] };
  }
}

/** The inverse of splitSecrets: the stored parameters with their passphrases put back. */
export function joinSecrets(command: Command, params: unknown, secrets: readonly string[]): ActionInput {
  const record = params as Record<string, unknown>;
  switch (command) {
    case 'subaccount_batch_create': {
      const items = (record.items as Omit<BatchCreateItem, 'passphrase'>[]).map((item, index) => ({
        ...item,
        passphrase: secrets[index] ?? '',
      }));
      return { command, params: { items } };
    }
    case 'apikey_create': {
      const rest = record as Omit<CreateVirtualSubaccountApiKeyParams, 'passphrase'>;
      return { command, params: { ...rest, passphrase: secrets[0] ?? '' } };
    }
    case 'apikey_modify': {
      const rest = record as Omit<ModifyVirtualSubaccountApiKeyParams, 'passphrase'>;
      return { command, params: { ...rest, passphrase: secrets[0] ?? '' } };
    }
    case 'subaccount_create':
      return { command, params: record as CreateSubParams };
    case 'orders_cancel_all':
      return { command, params: record as CancelSymbolOrderParams };
    case 'orders_batch_cancel':
      return { command, params: record as { orders: OrderRef[] } };
  }
}

/** The same parameters with every passphrase shown as [redacted]: for the audit row and the screen. */
export function redactInput(input: ActionInput): Record<string, unknown> {
  const { params, command } = splitSecrets(input);
  if (command === 'subaccount_batch_create') {
    const items = (params.items as object[]).map((item) => ({ ...item, passphrase: REDACTED }));
    return { items };
  }
  if (command === 'apikey_create' || command === 'apikey_modify') return { ...params, passphrase: REDACTED };
  return params;
}
