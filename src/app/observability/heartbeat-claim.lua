-- Claims the installation's next "no sync succeeded" alert for the calling worker.
-- Input:  KEYS[1] the key holding when (Unix ms) the installation last sent that alert
--         ARGV[1] now (Unix ms), ARGV[2] the heartbeat period (ms)
-- Output: 1 when the caller sends the alert (none was sent in the period before now; KEYS[1]
--         now holds now), 0 when another worker sent one within the period.
-- One script, so the read and the write are one step: of N workers whose checks come due at
-- the same moment exactly one sees the old value and the others see its write.
local last = redis.call('GET', KEYS[1])
if last and tonumber(last) > tonumber(ARGV[1]) - tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
