import { randomUUID } from 'node:crypto';

import { acquireWithWaits } from './acquire-loop.ts';
import type { AttemptResult, RateBudgetPort, RateRule, Slot } from './rate-budget-port.ts';

export interface MemoryRateBudgetOptions {
  /** Added to every window, as in the Redis budget. */
  marginMs?: number;
  /** How long an unfinished request holds its slot. */
  inFlightMs?: number;
  /** Polling interval while only in-flight requests block. */
  pollMs?: number;
  /** Milliseconds, fractional allowed; only differences are used. */
  clock?: () => number;
}

/** How long a waiter that never comes back keeps its place beyond the whole queue's turns (as in Redis). */
const FORGET_WAITER_AFTER_MS = 30_000;

/**
 * The Redis sliding-log budget (RateBudget, sliding-log-scripts.ts) kept in this process's memory,
 * for unit tests and a single process: the same rule per key (each rule key names one UID's
 * endpoint, or the IP's minute), the same in-flight lease and completion stamp, the same pause
 * after a 429, and the same first-come-first-served queue of callers that leave and come back.
 * Each attempt runs to its end without yielding, so it is as atomic as the Lua script.
 */
export class MemoryRateBudget implements RateBudgetPort {
  private readonly marginMs: number;
  private readonly inFlightMs: number;
  private readonly pollMs: number;
  private readonly clock: () => number;
  /** Per rule key: member -> score (the latest moment the exchange can have counted it). */
  private readonly logs = new Map<string, Map<string, number>>();
  /** Per rule key: the moment its pause ends. */
  private readonly pauses = new Map<string, number>();
  /** Per rule key: waiter -> when it first queued; insertion order is queue order. */
  private readonly queues = new Map<string, Map<string, number>>();

  constructor(options: MemoryRateBudgetOptions = {}) {
    this.marginMs = options.marginMs ?? 2;
    this.inFlightMs = options.inFlightMs ?? 60_000;
    this.pollMs = options.pollMs ?? 5;
    this.clock = options.clock ?? (() => performance.now());
  }

  acquire(rules: readonly RateRule[], signal?: AbortSignal): Promise<Slot> {
    return acquireWithWaits(rules, signal, (waiter) => Promise.resolve(this.tryAcquire(rules, waiter)));
  }

  /** One attempt, as ACQUIRE_SCRIPT: a slot in every rule, or the wait (until the waiter's turn). */
  tryAcquire(rules: readonly RateRule[], waiter?: { waiter: string; waitInPlaceMs: number }): AttemptResult {
    const now = this.clock();
    const waits: number[] = [];
    let wait = 0;
    let polling = false;
    for (const rule of rules) {
      let w = Math.max(0, Math.ceil((this.pauses.get(rule.key) ?? 0) - now));
      const window = rule.windowMs + this.marginMs;
      const log = this.logOf(rule.key);
      for (const [member, score] of log) if (score <= now - window) log.delete(member);
      if (log.size >= rule.limit) {
        const oldest = Math.min(...log.values());
        let free = 0;
        if (oldest <= now) free = Math.max(1, Math.ceil(oldest + window - now));
        else if (waiter) free = Math.ceil(window);
        else polling = true;
        w = Math.max(w, free);
      }
      waits.push(w);
      wait = Math.max(wait, w);
    }
    if (wait > 0) {
      if (waiter && wait > waiter.waitInPlaceMs) return { waitMs: this.queue(rules, waits, waiter.waiter, now) };
      return { waitMs: wait };
    }
    if (polling) return { waitMs: this.pollMs };
    const member = randomUUID();
    for (const rule of rules) {
      this.logOf(rule.key).set(member, now + this.inFlightMs);
      if (waiter) this.queues.get(rule.key)?.delete(waiter.waiter);
    }
    return { slot: { member, logKeys: rules.map((rule) => rule.key), waitedMs: 0 } };
  }

  /** Stamps the slot with the moment the answer arrived. */
  complete(slot: Slot): Promise<void> {
    const now = this.clock();
    for (const key of slot.logKeys) {
      const log = this.logs.get(key);
      if (log?.has(slot.member)) log.set(slot.member, now);
    }
    return Promise.resolve();
  }

  /** After a 429: nobody spends from this rule for `ms`; extends a pause, never shortens it. */
  pause(key: string, ms: number): Promise<void> {
    const until = this.clock() + Math.max(1, Math.ceil(ms));
    if ((this.pauses.get(key) ?? 0) < until) this.pauses.set(key, until);
    return Promise.resolve();
  }

  /** Queues the waiter in each refusing rule; the wait is until its turn: release + one interval per waiter ahead. */
  private queue(rules: readonly RateRule[], waits: readonly number[], waiter: string, now: number): number {
    let wait = 0;
    rules.forEach((rule, i) => {
      if (waits[i]! <= 0) return;
      const interval = (rule.windowMs + this.marginMs) / rule.limit;
      let queue = this.queues.get(rule.key);
      if (!queue) this.queues.set(rule.key, (queue = new Map()));
      const stale = now - queue.size * interval - FORGET_WAITER_AFTER_MS;
      for (const [name, since] of queue) if (since <= stale) queue.delete(name);
      if (!queue.has(waiter)) queue.set(waiter, now);
      const ahead = [...queue.keys()].indexOf(waiter);
      wait = Math.max(wait, Math.ceil(waits[i]! + ahead * interval));
    });
    return wait;
  }

  private logOf(key: string): Map<string, number> {
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = new Map()));
    return log;
  }
}
