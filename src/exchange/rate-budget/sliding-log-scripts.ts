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
 * KEYS: n log keys, then n pause keys, then optionally n queue keys. ARGV:
 * member, inFlightMs, waitInPlaceMs, waiter, then limit and windowMs per log
 * key. Returns {1, 0, now} when a slot was taken in every log, else
 * {0, waitMs, now}; without queue keys waitMs is -1 when only in-flight
 * requests block (no known end: poll).
 *
 * With queue keys the caller goes away for the wait and comes back (an ingest
 * job moved to delayed), named by `waiter`, which stays the same across its
 * returns. A refusal for longer than waitInPlaceMs puts the waiter in each
 * refusing rule's queue (first come, first served; a waiter keeps its place
 * when it comes back too early) and answers the wait until its turn: the slot's
 * release plus one interval (windowMs / limit) per waiter ahead. Thirteen
 * windows of one account waiting for its 1/s spot budget so come back one per
 * second, each near its moment, instead of all at once with twelve refused
 * again. A slot held in flight is reckoned free one window from now (it frees
 * one window after its answer). The queue only times the waits: a slot is still
 * granted on the log alone, so a late or lost waiter costs some waiting, never
 * a request over the limit; a waiter that never comes back is forgotten once
 * it has waited 30 s longer than the whole queue's turns.
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = (#ARGV - 4) / 2
local queued = #KEYS == 3 * n
local member = ARGV[1]
local inflight = tonumber(ARGV[2])
local waitInPlace = tonumber(ARGV[3])
local waiter = ARGV[4]
local waits = {}
local wait = 0
local polling = false
for i = 1, n do
  local w = redis.call('PTTL', KEYS[n + i])
  if w < 0 then w = 0 end
  local limit = tonumber(ARGV[3 + 2 * i])
  local window = tonumber(ARGV[4 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  if redis.call('ZCARD', KEYS[i]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    local score = tonumber(oldest[2])
    local free = 0
    if score <= now then
      free = math.ceil(score + window - now)
      if free < 1 then free = 1 end
    elseif queued then
      free = math.ceil(window)
    else
      polling = true
    end
    if free > w then w = free end
  end
  waits[i] = w
  if w > wait then wait = w end
end
if wait > 0 then
  if queued and wait > waitInPlace then
    wait = 0
    for i = 1, n do
      if waits[i] > 0 then
        local q = KEYS[2 * n + i]
        local interval = tonumber(ARGV[4 + 2 * i]) / tonumber(ARGV[3 + 2 * i])
        local card = redis.call('ZCARD', q)
        redis.call('ZREMRANGEBYSCORE', q, '-inf', now - card * interval - 30000)
        redis.call('ZADD', q, 'NX', now, waiter)
        local ahead = redis.call('ZRANK', q, waiter)
        redis.call('PEXPIRE', q, math.ceil((card + 1) * interval) + 60000)
        local w = math.ceil(waits[i] + ahead * interval)
        if w > wait then wait = w end
      end
    end
  end
  return {0, wait, now}
end
if polling then return {0, -1, now} end
for i = 1, n do
  local window = tonumber(ARGV[4 + 2 * i])
  redis.call('ZADD', KEYS[i], now + inflight, member)
  redis.call('PEXPIRE', KEYS[i], window + inflight + 1000)
  if queued then redis.call('ZREM', KEYS[2 * n + i], waiter) end
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
