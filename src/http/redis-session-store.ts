import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import type { Cluster, Redis } from 'ioredis';

/** The session store did not answer in time: the request gets a plain 503 (answerFailuresPlainly). */
export class SessionStoreUnavailableError extends Error {
  readonly statusCode = 503;
  constructor() {
    super('the session store (Redis) is unavailable');
    this.name = 'SessionStoreUnavailableError';
  }
}

/**
 * Sessions of the web page in Redis, under the installation's QUEUE_PREFIX, so that signing out
 * deletes the session for every copy of its cookie, and a session ends at its maximum age even
 * if the browser keeps the cookie (the key expires with it).
 *
 * BullMQ's connection waits for Redis forever; `ready` bounds that wait (see redisReadiness), so a
 * page whose cookie names a session answers 503 within seconds when Redis is down.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly maxAgeS: number,
    private readonly ready: () => boolean | Promise<boolean>,
  ) {}

  #key(sessionId: string): string {
    return `${this.prefix}:web-session:${sessionId}`;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!(await this.ready())) throw new SessionStoreUnavailableError();
    return command();
  }

  set(sessionId: string, session: Session, callback: (err?: unknown) => void): void {
    const expires = session.cookie.expires?.getTime();
    const ttl = expires ? Math.ceil((expires - Date.now()) / 1000) : this.maxAgeS;
    if (ttl <= 0) {
      this.destroy(sessionId, callback);
      return;
    }
    this.#run(() => this.redis.set(this.#key(sessionId), JSON.stringify(session), 'EX', Math.min(ttl, this.maxAgeS)))
      .then(() => callback())
      .catch(callback);
  }

  get(sessionId: string, callback: (err: unknown, result?: Session | null) => void): void {
    this.#run(() => this.redis.get(this.#key(sessionId)))
      .then((text) => callback(null, text ? (JSON.parse(text) as Session) : null))
      .catch(callback);
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.#run(() => this.redis.del(this.#key(sessionId)))
      .then(() => callback())
      .catch(callback);
  }
}
