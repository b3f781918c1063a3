-- Renews a reconciliation run's claim, only for the process that holds it.
-- Input:  KEYS[1] the claim's key (`<prefix>:reconcile-run:claim:<run>`)
--         ARGV[1] the caller's claim value (its process id and the claim's version), ARGV[2] the TTL (ms)
-- Output: 1 when the claim was the caller's and now lasts ARGV[2] more, 0 when it expired or
--         another process holds it (the caller's run is then fenced off in Postgres if that one claimed it).
-- One script, so the check and the renewal are one step: a claim taken by another process between
-- them can never be extended by the process that lost it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
