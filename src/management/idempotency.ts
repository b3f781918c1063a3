import { createHash } from 'node:crypto';

import { ValidationError } from '../errors/index.ts';
import type { Command } from './action-input.ts';

const CALLER_KEY = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Commands that do nothing twice when sent twice (a modify to the same
 * values, a cancel): their derived key only joins a run still under way, and
 * is released when the action ends, so the same command later (a cancel-all
 * from cron, a label set back) runs again. Creates keep theirs for good.
 */
const REPEAT_SAFE: ReadonlySet<Command> = new Set(['apikey_modify', 'orders_cancel_all', 'orders_batch_cancel']);

/** The key an ended action keeps instead of `key`, when `key` is released (see REPEAT_SAFE). */
export function releasedKey(key: string, command: Command, actionId: string): string | undefined {
  return key.startsWith('derived:') && REPEAT_SAFE.has(command) ? `${key}@${actionId}` : undefined;
}

/**
 * The key that makes an action happen at most once. A caller's own key is
 * taken as given and never released; otherwise it is derived from the
 * normalized command (the account, the command and its parameters without
 * secrets), so the same command typed twice is the same action (for a
 * repeat-safe command, only while the first is still under way).
 */
export function idempotencyKey(accountId: string, command: Command, params: unknown, callerKey?: string): string {
  if (callerKey !== undefined) {
    if (!CALLER_KEY.test(callerKey)) {
      throw new ValidationError(
        '--idempotency-key',
        'must be 1 to 100 characters of letters, digits, . _ : -',
        callerKey,
      );
    }
    return `caller:${callerKey}`;
  }
  const normalized = normalize(command, params as Record<string, unknown>);
  const digest = createHash('sha256')
    .update(canonicalJson({ accountId, command, params: normalized }))
    .digest('hex');
  return `derived:${command}:${digest}`;
}

/** JSON with object keys sorted at every level and undefined members dropped: equal inputs, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// Lists that are sets to the exchange compare equal in any order.
function sortedSet(list: unknown): unknown {
  return Array.isArray(list) ? [...new Set(list.map(String))].sort() : list;
}

function normalizeKeyFields(item: Record<string, unknown>): Record<string, unknown> {
  return { ...item, permList: sortedSet(item.permList), ipList: sortedSet(item.ipList) };
}

function byCanonicalText(a: unknown, b: unknown): number {
  const [x, y] = [canonicalJson(a), canonicalJson(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The parameters in a form where two ways of writing the same command are equal. */
function normalize(command: Command, params: Record<string, unknown>): unknown {
  switch (command) {
    case 'apikey_create':
    case 'apikey_modify':
      return normalizeKeyFields(params);
    case 'subaccount_batch_create':
      return (params.items as Record<string, unknown>[])
        .map((item) => ({ ...normalizeKeyFields(item), subAccountName: String(item.subAccountName).toLowerCase() }))
        .sort(byCanonicalText);
    case 'orders_batch_cancel':
      return [...(params.orders as unknown[])].sort(byCanonicalText);
    case 'subaccount_create':
      // Absent and unified create the same kind of sub-account.
      return { ...params, accountMode: params.accountMode ?? 'unified' };
    case 'orders_cancel_all':
      return params;
  }
}
