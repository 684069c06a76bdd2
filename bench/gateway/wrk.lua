-- make bench-gateway's wrk script: each request carries the next of KEYS distinct X-Key values,
-- wrk's THREADS threads interleaving over them as the Go driver's workers do; done() prints one
-- JSON line the driver reads: the counts and the latency quantiles in microseconds.
local keys = tonumber(os.getenv("KEYS"))
local step = tonumber(os.getenv("THREADS"))
local started = 0

function setup(thread)
  thread:set("id", started)
  started = started + 1
end

function init(args)
  next_key = id
end

function request()
  local key = next_key % keys
  next_key = next_key + step
  return wrk.format("GET", nil, { ["X-Key"] = "k" .. key })
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non_2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
