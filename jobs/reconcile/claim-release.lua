-- Releases a reconciliation run's claim, only for the process that holds it.
-- Input:  KEYS[1] the claim's key (`<prefix>:reconcile-run:claim:<run>`)
--         ARGV[1] the caller's claim value (its process id and the claim's version)
-- Output: 1 when the claim was the caller's and is gone, 0 when it had expired or another process
--         holds it (left alone: a run that lost its claim never deletes the owner's).
-- One script, so the check and the delete are one step.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
