import type { Result } from 'ioredis';

export const RATE_LIMIT_COMMAND = 'keyplaneRateLimit';

/**
 * One flat list (Redis turns each nested Lua table of a reply into RESP at a price): per check, in
 * the order the checks were given, allPassed (1/0), then per limit in request order passed (1/0),
 * remaining, reset (unix ms) and limit.
 */
export type ScriptReply = number[];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    keyplaneRateLimit(numberOfKeys: number, ...keysAndArgs: string[]): Result<ScriptReply, Context>;
  }
}

/**
 * The multi-limit check-and-increment of slidingWindow.ts for a batch of checks, atomically: each
 * check is judged all-or-nothing in turn against the counts the checks before it left, exactly as
 * if each had been its own call in that order, so concurrent checks can share one round trip.
 *
 * KEYS: the distinct counter keys of the batch; the window index is appended here because it
 *   depends on the server clock. On Redis Cluster every key of one call must hash to the same
 *   slot, which the caller's hash tag (`{workspace}`) guarantees for the derived window keys too.
 * ARGV[1]: now in unix ms, or '' to use the Redis server clock so that processes with skewed
 *   clocks agree.
 * ARGV[2]: the number of checks; then per check its number of limits, then per limit: the index
 *   of its counter in KEYS, limit, durationMs, cost.
 */
export const RATE_LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local floor, max = math.floor, math.max

-- Each window a counter is read in, once per call: by KEYS index, then window number. Its key
-- and the previous window's count are built and read only here, not once per limit: the script's
-- cost is per limit, and a batch repeats the same few counters.
local windows = {}
local function window_of(index, window)
  local of_counter = windows[index]
  if of_counter == nil then
    of_counter = {}
    windows[index] = of_counter
  end
  local entry = of_counter[window]
  if entry == nil then
    local counter = KEYS[index]
    local key = counter .. ':' .. window
    entry = {
      key = key,
      count = tonumber(redis.call('GET', key) or 0),
      previous = tonumber(redis.call('GET', counter .. ':' .. (window - 1)) or 0),
      added = 0,
    }
    of_counter[window] = entry
  end
  return entry
end

local added_order = {}
local reply = {}
local n = 0
-- Reused by every check: its limits' counts as judged, before its own increments.
local effective = {}
local position = 3
for check = 1, tonumber(ARGV[2]) do
  local size = tonumber(ARGV[position])
  local first = position + 1
  position = first + size * 4
  -- Judged against the counts before this check, all-or-nothing.
  local all_passed = 1
  for i = 1, size do
    local at = first + (i - 1) * 4
    local duration = tonumber(ARGV[at + 2])
    local entry = window_of(tonumber(ARGV[at]), floor(now / duration))
    local value = entry.count + entry.previous * (1 - (now % duration) / duration)
    effective[i] = value
    if value + tonumber(ARGV[at + 3]) > tonumber(ARGV[at + 1]) then
      all_passed = 0
    end
  end

  n = n + 1
  reply[n] = all_passed
  for i = 1, size do
    local at = first + (i - 1) * 4
    local limit = tonumber(ARGV[at + 1])
    local duration = tonumber(ARGV[at + 2])
    local cost = tonumber(ARGV[at + 3])
    local window = floor(now / duration)
    local value = effective[i]
    local used = value
    if all_passed == 1 then
      used = value + cost
      if cost > 0 then
        local entry = window_of(tonumber(ARGV[at]), window)
        if entry.added == 0 then
          entry.duration = duration
          added_order[#added_order + 1] = entry
        end
        entry.count = entry.count + cost
        entry.added = entry.added + cost
      end
    end
    reply[n + 1] = value + cost <= limit and 1 or 0
    reply[n + 2] = max(0, floor(limit - used))
    reply[n + 3] = (window + 1) * duration
    reply[n + 4] = limit
    n = n + 4
  end
end

for _, entry in ipairs(added_order) do
  redis.call('INCRBY', entry.key, entry.added)
  redis.call('PEXPIRE', entry.key, 2 * entry.duration)
end
return reply
`;
