import type { Result } from 'ioredis';

export const RATE_LIMIT_COMMAND = 'keyplaneRateLimit';

/** Per limit, in request order: passed (1/0), remaining, reset (unix ms), limit. */
export type ScriptLimitReply = [passed: number, remaining: number, reset: number, limit: number];
/** Per check, in the order the checks were given. */
export type ScriptReply = [allPassed: number, limits: ScriptLimitReply[]][];

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

local counts = {}
local function count(key)
  local value = counts[key]
  if value == nil then
    value = tonumber(redis.call('GET', key) or 0)
    counts[key] = value
  end
  return value
end

local added = {}
local added_order = {}
local replies = {}
local position = 3
for check = 1, tonumber(ARGV[2]) do
  local limits = {}
  local all_passed = 1
  local size = tonumber(ARGV[position])
  position = position + 1
  for i = 1, size do
    local counter = KEYS[tonumber(ARGV[position])]
    local limit = tonumber(ARGV[position + 1])
    local duration = tonumber(ARGV[position + 2])
    local cost = tonumber(ARGV[position + 3])
    position = position + 4
    local window = math.floor(now / duration)
    local current_key = counter .. ':' .. window
    local effective = count(current_key) + count(counter .. ':' .. (window - 1)) * (1 - (now % duration) / duration)
    local passed = effective + cost <= limit
    if not passed then
      all_passed = 0
    end
    limits[i] = {
      key = current_key, limit = limit, duration = duration, cost = cost,
      effective = effective, passed = passed, reset = (window + 1) * duration,
    }
  end

  local results = {}
  for i, l in ipairs(limits) do
    local used = l.effective
    if all_passed == 1 then
      used = used + l.cost
      if l.cost > 0 then
        counts[l.key] = counts[l.key] + l.cost
        if added[l.key] == nil then
          added[l.key] = { 0, l.duration }
          added_order[#added_order + 1] = l.key
        end
        added[l.key][1] = added[l.key][1] + l.cost
      end
    end
    results[i] = { l.passed and 1 or 0, math.max(0, math.floor(l.limit - used)), l.reset, l.limit }
  end
  replies[check] = { all_passed, results }
end

for _, key in ipairs(added_order) do
  redis.call('INCRBY', key, added[key][1])
  redis.call('PEXPIRE', key, 2 * added[key][2])
end
return replies
`;
