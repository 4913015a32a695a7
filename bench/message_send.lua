-- wrk script: message/send with the walkthrough's requests, a fresh id each time.
-- The texts and done() are global: message_send_v1.lua reuses them.
walkthrough_texts = {
  "why is order 4711 blocked by credit",
  "Order 4725: Pricing: customer disputes the price.",
  "Order 4723: Incomplete: delivery address data missing.",
  "customer wants a later delivery date on 4740",
}
local counter = 0
local token = os.getenv("BENCH_TOKEN")
local headers = { ["Content-Type"] = "application/json" }
if token and token ~= "" then
  headers["Authorization"] = "Bearer " .. token
end

request = function()
  counter = counter + 1
  local text = walkthrough_texts[(counter % #walkthrough_texts) + 1]
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"bench-%d","parts":[{"kind":"text","text":"%s"}]}}}',
    counter, counter, text)
  return wrk.format("POST", "/", headers, body)
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d requests=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    summary.requests))
end
