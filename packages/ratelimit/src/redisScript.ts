import type { Result } from 'ioredis';

export const RATE_LIMIT_COMMAND = 'keyplaneRateLimit';

/** Per limit, in request order: passed (1/0), remaining, reset (unix ms), limit. */
export type ScriptLimitReply = [passed: number, remaining: number, reset: number, limit: number];
export type ScriptReply = [allPassed: number, limits: ScriptLimitReply[]];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    keyplaneRateLimit(numberOfKeys: number, ...keysAndArgs: string[]): Result<ScriptReply, Context>;
  }
}

/**
 * The whole multi-limit check-and-increment of slidingWindow.ts, atomically.
 *
 * KEYS[i]: counter key of limit i; the window index is appended here because it depends on the
 *   server clock. On Redis Cluster every key of one call must hash to the same slot, which the
 *   caller's hash tag (`{workspace}`) guarantees for the derived window keys as well.
 * ARGV[1]: now in unix ms, or '' to use the Redis server clock so that processes with skewed
 *   clocks agree.
 * ARGV[2 + 3(i-1) ..]: limit, durationMs, cost of limit i.
 */
export const RATE_LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local limits = {}
local all_passed = 1
for i, counter in ipairs(KEYS) do
  local offset = 1 + (i - 1) * 3
  local limit = tonumber(ARGV[offset + 1])
  local duration = tonumber(ARGV[offset + 2])
  local cost = tonumber(ARGV[offset + 3])
  local window = math.floor(now / duration)
  local current_key = counter .. ':' .. window
  local current = tonumber(redis.call('GET', current_key) or 0)
  local previous = tonumber(redis.call('GET', counter .. ':' .. (window - 1)) or 0)
  local effective = current + previous * (1 - (now % duration) / duration)
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
      redis.call('INCRBY', l.key, l.cost)
      redis.call('PEXPIRE', l.key, 2 * l.duration)
    end
  end
  results[i] = { l.passed and 1 or 0, math.max(0, math.floor(l.limit - used)), l.reset, l.limit }
end
return { all_passed, results }
`;
