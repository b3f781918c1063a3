import { randomUUID } from 'node:crypto';

import type { Cluster, Redis } from 'ioredis';

import { acquireWithWaits } from './acquire-loop.ts';
import type { AttemptResult, RateBudgetPort, RateRule, Slot } from './rate-budget-port.ts';
import { runScript } from './run-script.ts';
import { ACQUIRE_SCRIPT, COMPLETE_SCRIPT, PAUSE_SCRIPT } from './sliding-log-scripts.ts';

export type { RateRule, Slot } from './rate-budget-port.ts';

export interface RateBudgetOptions {
  /** Prefix of every Redis key. */
  prefix?: string;
  /**
   * Added to every window. The accounting is already conservative (a slot is
   * held until the answer is back), so this only covers clock-rate differences
   * between Redis and the exchange (NTP slewing: under 1 ms per second).
   */
  marginMs?: number;
  /** How long an unfinished request holds its slot (a crashed process releases it after this). */
  inFlightMs?: number;
  /** Polling interval while only in-flight requests block. */
  pollMs?: number;
}

/**
 * The request budget shared by every process and worker through Redis: a
 * sliding log per rule (see sliding-log-scripts.ts for why it cannot let the
 * exchange count more than the limit). Callers wait for a slot instead of
 * collecting 429s; a 429 that still happens pauses the rule's key.
 */
export class RateBudget implements RateBudgetPort {
  private readonly prefix: string;
  private readonly marginMs: number;
  private readonly inFlightMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: Redis | Cluster,
    options: RateBudgetOptions = {},
  ) {
    this.prefix = options.prefix ?? 'll:rate';
    this.marginMs = options.marginMs ?? 2;
    this.inFlightMs = options.inFlightMs ?? 60_000;
    this.pollMs = options.pollMs ?? 5;
  }

  /**
   * Waits until every rule has room, then takes one slot in each, atomically. Inside
   * withoutBudgetWaits, a wait longer than it allows throws BudgetWaitError instead, with the
   * wait until the caller's turn (see sliding-log-scripts.ts).
   */
  acquire(rules: readonly RateRule[], signal?: AbortSignal): Promise<Slot> {
    return acquireWithWaits(rules, signal, (waiter) => this.tryAcquire(rules, waiter));
  }

  /**
   * One attempt: a slot, or how long to wait before the next attempt. With a waiter (a caller
   * that leaves and comes back), a refusal for longer than it waits in place queues it and the
   * wait is until its turn.
   */
  async tryAcquire(
    rules: readonly RateRule[],
    waiter?: { waiter: string; waitInPlaceMs: number },
  ): Promise<AttemptResult> {
    const member = randomUUID();
    const logKeys = rules.map((rule) => this.logKey(rule.key));
    const keys = [...logKeys, ...rules.map((rule) => this.pauseKey(rule.key))];
    if (waiter) keys.push(...rules.map((rule) => this.queueKey(rule.key)));
    const args: (string | number)[] = [member, this.inFlightMs, waiter?.waitInPlaceMs ?? 0, waiter?.waiter ?? ''];
    for (const rule of rules) args.push(rule.limit, rule.windowMs + this.marginMs);
    const [granted, waitMs] = (await runScript(this.redis, ACQUIRE_SCRIPT, keys, args)) as [number, number, number];
    if (granted === 1) return { slot: { member, logKeys, waitedMs: 0 } };
    return { waitMs: waitMs < 0 ? this.pollMs : waitMs };
  }

  /** Stamps the slot with the moment the answer arrived: the exchange has counted the request by then. */
  async complete(slot: Slot): Promise<void> {
    await runScript(this.redis, COMPLETE_SCRIPT, slot.logKeys, [slot.member]);
  }

  /** After a 429: nobody spends from this rule for `ms`. */
  async pause(key: string, ms: number): Promise<void> {
    await runScript(this.redis, PAUSE_SCRIPT, [this.pauseKey(key)], [Math.max(1, Math.ceil(ms))]);
  }

  private logKey(key: string): string {
    return `${this.prefix}:log:${key}`;
  }

  private pauseKey(key: string): string {
    return `${this.prefix}:pause:${key}`;
  }

  private queueKey(key: string): string {
    return `${this.prefix}:queue:${key}`;
  }
}
