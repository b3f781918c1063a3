import { SlidingWindowLimiter } from './sliding-window.ts';

export interface RateLimitOptions {
  enabled: boolean;
  /** Multiplies every budget: 2 doubles them. */
  factor?: number;
}

/** docs/exchange-api.md §4.4: on top of each endpoint's budget, 6000 requests per IP per minute. */
const IP_PER_MINUTE = 6000;

/**
 * Every budget of the simulated exchange: per endpoint per UID (per IP for
 * public endpoints) over a sliding second, plus the overall per-IP minute.
 */
export class RateLimits {
  readonly #endpoints = new Map<string, SlidingWindowLimiter>();
  #ipMinute: SlidingWindowLimiter;
  #options: Required<RateLimitOptions>;

  constructor(options: RateLimitOptions = { enabled: true }) {
    this.#options = normalize(options);
    this.#ipMinute = new SlidingWindowLimiter(scaled(IP_PER_MINUTE, this.#options.factor), 60_000);
  }

  get options(): Required<RateLimitOptions> {
    return { ...this.#options };
  }

  configure(options: RateLimitOptions): void {
    this.#options = normalize(options);
    this.#endpoints.clear();
    this.#ipMinute = new SlidingWindowLimiter(scaled(IP_PER_MINUTE, this.#options.factor), 60_000);
  }

  /** The overall per-IP budget; false when spent. */
  takeIp(ip: string, now: number): boolean {
    return !this.#options.enabled || this.#ipMinute.tryTake(ip, now);
  }

  /** One endpoint's budget for one UID or IP; false when spent. */
  takeEndpoint(endpoint: string, perSecond: number, key: string, now: number): boolean {
    if (!this.#options.enabled) return true;
    let limiter = this.#endpoints.get(endpoint);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(scaled(perSecond, this.#options.factor), 1000);
      this.#endpoints.set(endpoint, limiter);
    }
    return limiter.tryTake(key, now);
  }

  reset(): void {
    this.#endpoints.clear();
    this.#ipMinute.reset();
  }
}

function normalize(options: RateLimitOptions): Required<RateLimitOptions> {
  const factor = options.factor ?? 1;
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError('rateLimits.factor: must be a positive number');
  return { enabled: options.enabled, factor };
}

function scaled(budget: number, factor: number): number {
  return Math.max(1, Math.round(budget * factor));
}
