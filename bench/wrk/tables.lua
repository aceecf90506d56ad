-- One table per wrk thread (run it with -t N -c N: one connection each), for bench.wrk_runs.
--
-- FRAYLOG_WRK_TABLES names a file of lines, one per table, fields separated by a tab:
--   method, path, expected status, Authorization header, If-None-Match header, body, body
-- ("-" for a header or body not sent). Thread n takes line n. Its requests alternate between
-- the two bodies (adjust_hits +1, then -1: the fighter's hits stay put, every command is
-- valid and records an event). A status other than the expected one is counted; done()
-- prints one line, "FRAYLOG_WRK {json}", that bench.wrk_runs.parse reads.

local lines = {}
for line in io.lines(os.getenv("FRAYLOG_WRK_TABLES")) do
  if line ~= "" then
    lines[#lines + 1] = line
  end
end

local threads = {}

function setup(thread)
  local n = #threads + 1
  thread:set("spec", lines[(n - 1) % #lines + 1])
  threads[n] = thread
end

local prepared = {}
local sent = 0
local expected = 200
unexpected = 0 -- globals: done() reads them with thread:get
last_status = 0

function init(args)
  local f = {}
  for field in string.gmatch(spec, "[^\t]+") do
    f[#f + 1] = field
  end
  local method, path = f[1], f[2]
  expected = tonumber(f[3])
  local headers = { ["Content-Type"] = "application/json" }
  if f[4] ~= "-" then
    headers["Authorization"] = f[4]
  end
  if f[5] ~= "-" then
    headers["If-None-Match"] = f[5]
  end
  for i = 6, 7 do
    if f[i] ~= nil and f[i] ~= "-" then
      prepared[#prepared + 1] = wrk.format(method, path, headers, f[i])
    end
  end
  if #prepared == 0 then
    prepared[1] = wrk.format(method, path, headers, nil)
  end
end

function request()
  sent = sent + 1
  return prepared[(sent - 1) % #prepared + 1]
end

function response(status, headers, body)
  if status ~= expected then
    unexpected = unexpected + 1
    last_status = status
  end
end

function done(summary, latency, requests)
  local bad, status = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("unexpected")
    if thread:get("last_status") ~= 0 then
      status = thread:get("last_status")
    end
  end
  local e = summary.errors
  io.write(string.format(
    'FRAYLOG_WRK {"requests": %d, "duration_us": %d, "p50_us": %d, "p90_us": %d, '
      .. '"p99_us": %d, "max_us": %d, "mean_us": %.1f, "unexpected": %d, '
      .. '"unexpected_status": %d, "connect": %d, "read": %d, "write": %d, '
      .. '"status": %d, "timeout": %d, "threads": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, latency.mean, bad, status, e.connect, e.read,
    e.write, e.status, e.timeout, #threads
  ))
end
