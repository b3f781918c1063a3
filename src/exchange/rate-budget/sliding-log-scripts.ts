/**
 * Lua scripts of the sliding-log budget. Every entry of a key's sorted set is
 * one request; its score is the latest moment the exchange can have counted
 * it: "now + inFlightMs" while the request is in flight, the completion time
 * once the answer is back. A new request may start only when fewer than
 * `limit` entries have a score within the last `window` ms. Since the exchange
 * saw request k at or before its completion, and request k+limit is sent at or
 * after completion(k) + window, the exchange's own sliding window never holds
 * more than `limit` of ours, whatever the network jitter. Time is Redis's
 * clock in microseconds (scores are fractional ms), so every process and
 * machine agrees on it and no rounding eats into the window.
 */

/**
 * KEYS: n log keys, then n pause keys. ARGV: member, inFlightMs, then limit and
 * windowMs per log key. Returns {1, 0, now} when a slot was taken in every log,
 * else {0, waitMs, now}; waitMs is -1 when only in-flight requests block (no
 * known end: poll).
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = #KEYS / 2
local member = ARGV[1]
local inflight = tonumber(ARGV[2])
local wait = 0
local polling = false
for i = 1, n do
  local pttl = redis.call('PTTL', KEYS[n + i])
  if pttl > wait then wait = pttl end
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  if redis.call('ZCARD', KEYS[i]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    local score = tonumber(oldest[2])
    if score > now then
      polling = true
    else
      local w = math.ceil(score + window - now)
      if w < 1 then w = 1 end
      if w > wait then wait = w end
    end
  end
end
if wait > 0 then return {0, wait, now} end
if polling then return {0, -1, now} end
for i = 1, n do
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZADD', KEYS[i], now + inflight, member)
  redis.call('PEXPIRE', KEYS[i], window + inflight + 1000)
end
return {1, 0, now}
`;

/** KEYS: the log keys of a slot. ARGV: member. Re-stamps the slot with the completion time. */
export const COMPLETE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now, ARGV[1])
end
return now
`;

/** KEYS: one pause key. ARGV: ms. Extends the pause, never shortens it. */
export const PAUSE_SCRIPT = `
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
end
return 1
`;
