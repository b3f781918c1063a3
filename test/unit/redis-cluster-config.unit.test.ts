import { describe, expect, it } from 'vitest';

import { hasHashTag, loadConfig } from '../../src/config/config.ts';
import { configError } from '../helpers/config-error.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('is empty by default: the single Redis at REDIS_URL', () => {
    expect(loadConfig({}).redisClusterNodes).toEqual([]);
  });

  it('parses host:port seed nodes when the prefix is hash-tagged', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000, redis-b.internal:7001', QUEUE_PREFIX: '{ll}' });
    expect(config.redisClusterNodes).toEqual([
      { host: '127.0.0.1', port: 7000 },
      { host: 'redis-b.internal', port: 7001 },
    ]);
  });

  it('refuses an untagged QUEUE_PREFIX on a cluster, naming QUEUE_PREFIX and the rule', () => {
    const error = configError({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', QUEUE_PREFIX: 'ledgerline' });
    expect(error.field).toBe('QUEUE_PREFIX');
    expect(error.message).toMatch(/must be hash-tagged in braces, e\.g\. \{ledgerline\}, when REDIS_CLUSTER_NODES/);
    // The default prefix is untagged too: a cluster needs it set.
    expect(configError({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }).field).toBe('QUEUE_PREFIX');
  });

  it('names REDIS_CLUSTER_NODES for a node that is not host:port', () => {
    for (const nodes of ['127.0.0.1', '127.0.0.1:0', '127.0.0.1:65536', 'a b:7000', 'redis://h:7000']) {
      const error = configError({ REDIS_CLUSTER_NODES: nodes, QUEUE_PREFIX: '{ll}' });
      expect(error.field).toBe('REDIS_CLUSTER_NODES');
      expect(error.message).toMatch(/host:port/);
    }
  });

  it('knows a hash tag as Redis Cluster does: the first {...} with something inside', () => {
    expect(hasHashTag('{ledgerline}')).toBe(true);
    expect(hasHashTag('{ledgerline}-demo')).toBe(true);
    expect(hasHashTag('ledgerline')).toBe(false);
    expect(hasHashTag('{}ledgerline')).toBe(false);
    expect(hasHashTag('{ledgerline')).toBe(false);
  });
});
