import type { Result } from 'ioredis';

export const RATE_LIMIT_COMMAND = 'keyplaneRateLimit';
export const WRITE_BACK_COMMAND = 'keyplaneWriteBack';

/**
 * One flat list of integers (Redis turns every value of a reply into RESP, and the client decodes
 * each at a price): the time the checks were judged at (unix ms), then one per limit, in the order
 * of the checks and of their limits: its remaining count (>= 0) when that limit alone passed, else
 * minus its retry-after in ms (which is at least 1; a refusing limit has 0 remaining). A check
 * passed when all its limits did; each limit's reset follows from the time.
 */
export type ScriptReply = number[];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    keyplaneRateLimit(numberOfKeys: number, ...keysAndArgs: string[]): Result<ScriptReply, Context>;
    keyplaneWriteBack(numberOfKeys: number, ...keysAndArgs: string[]): Result<null, Context>;
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
 * ARGV[2]: the number of limit specs, the batch's distinct (counter, limit, duration); then per
 *   spec: the index of its counter in KEYS, limit, durationMs. A batch repeats the same few specs:
 *   each is sent, parsed and placed in its window once per call instead of once per check.
 * Then the number of checks; per check its number of limits, then per limit: spec index, cost.
 */
export const RATE_LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local floor, ceil, max, tonumber = math.floor, math.ceil, math.max, tonumber

-- slidingWindow.ts retryAfterMs: ms until a request of this cost could pass the limit it fails now.
local function retry_after(current, previous, limit, cost, duration)
  local elapsed = now % duration
  if cost > limit then return duration - elapsed end
  if current + cost <= limit then
    return max(1, ceil(duration * (1 - (limit - current - cost) / previous) - elapsed))
  end
  local into_next = 0
  if current > limit - cost then into_next = duration * (1 - (limit - cost) / current) end
  return ceil(duration - elapsed + into_next)
end

-- Each counter window read once per call, shared by the specs that fall in it.
local windows = {}
local specs = {}
local spec_count = tonumber(ARGV[2])
for s = 1, spec_count do
  local at = 3 + (s - 1) * 3
  local counter = KEYS[tonumber(ARGV[at])]
  local duration = tonumber(ARGV[at + 2])
  local window = floor(now / duration)
  local key = counter .. ':' .. window
  local entry = windows[key]
  if entry == nil then
    entry = {
      key = key,
      count = tonumber(redis.call('GET', key) or 0),
      previous = tonumber(redis.call('GET', counter .. ':' .. (window - 1)) or 0),
      added = 0,
    }
    windows[key] = entry
  end
  specs[s] = {
    entry = entry,
    limit = tonumber(ARGV[at + 1]),
    duration = duration,
    -- The share of the previous window that still overlaps the sliding window.
    weight = 1 - (now % duration) / duration,
  }
end

local added_order = {}
local reply = { now }
-- Reused by every check: its limits' counts as judged, before its own increments.
local effective = {}
local position = 3 + spec_count * 3 + 1
for check = 1, tonumber(ARGV[3 + spec_count * 3]) do
  local size = tonumber(ARGV[position])
  local first = position + 1
  position = first + size * 2
  -- Judged against the counts before this check, all-or-nothing.
  local all_passed = true
  for i = 1, size do
    local at = first + (i - 1) * 2
    local spec = specs[tonumber(ARGV[at])]
    local value = spec.entry.count + spec.entry.previous * spec.weight
    effective[i] = value
    if value + tonumber(ARGV[at + 1]) > spec.limit then
      all_passed = false
    end
  end

  for i = 1, size do
    local at = first + (i - 1) * 2
    local spec = specs[tonumber(ARGV[at])]
    local cost = tonumber(ARGV[at + 1])
    local value = effective[i]
    if all_passed then
      if cost > 0 then
        local entry = spec.entry
        if entry.added == 0 then
          entry.duration = spec.duration
          added_order[#added_order + 1] = entry
        end
        entry.count = entry.count + cost
        entry.added = entry.added + cost
      end
      reply[#reply + 1] = floor(spec.limit - value - cost)
    elseif value + cost <= spec.limit then
      -- Passed alone in a refused check: nothing was counted, so it keeps what it had.
      reply[#reply + 1] = floor(spec.limit - value)
    else
      reply[#reply + 1] = -retry_after(spec.entry.count, spec.entry.previous, spec.limit, cost, spec.duration)
    end
  end
end

for _, entry in ipairs(added_order) do
  redis.call('INCRBY', entry.key, entry.added)
  redis.call('PEXPIRE', entry.key, 2 * entry.duration)
end
return reply
`;

/**
 * Writes one process's own counts of windows back after Redis was unreachable: each window's count
 * is raised to the process's where it is lower, never lowered and never added to. A Redis that
 * restarted empty then knows at least what this process admitted, and one that kept its counts is
 * not charged twice for what this process admitted through it.
 *
 * KEYS: window keys, named as the rate-limit script names them (counter key, ':', window index).
 * ARGV: per key, the process's count and how long to keep the window in ms.
 */
export const WRITE_BACK_SCRIPT = `
for i, key in ipairs(KEYS) do
  local count = tonumber(ARGV[i * 2 - 1])
  if count > tonumber(redis.call('GET', key) or 0) then
    redis.call('SET', key, count, 'PX', ARGV[i * 2])
  end
end
`;
