-- wrk script: the A2A 1.0 equivalent of message_send.lua, for servers that
-- speak 1.0 only, such as the official Rust SDK's peer (bench/sdk_peer/):
-- the same four walkthrough texts and result line (dofile, from the
-- repository's root as the benchmarks run wrk), a fresh id each time, as the
-- JSON-RPC method SendMessage with the A2A-Version: 1.0 header and 1.0's
-- ProtoJSON message (role ROLE_USER, a part without "kind").
dofile("bench/message_send.lua")

local counter = 0
local headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }

request = function()
  counter = counter + 1
  local text = walkthrough_texts[(counter % #walkthrough_texts) + 1]
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"bench-%d","parts":[{"text":"%s"}]}}}',
    counter, counter, text)
  return wrk.format("POST", "/", headers, body)
end
