import type { FastifyBaseLogger } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';

/**
 * Failed sign-ins (the form, or a wrong bearer token) per client address:
 * after 10 in a minute, that address is refused for the rest of the minute,
 * before its token is even compared, so a right guess inside a lockout fails too.
 */
export class SignInLimiter {
  readonly #failures = new RateLimiterMemory({ points: 10, duration: 60 });

  async blocked(ip: string): Promise<boolean> {
    const seen = await this.#failures.get(ip);
    return seen !== null && seen.remainingPoints <= 0;
  }

  async failed(ip: string, log: FastifyBaseLogger, via: 'form' | 'bearer'): Promise<void> {
    await this.#failures.penalty(ip);
    log.warn({ ip, via }, 'failed sign-in');
  }
}
