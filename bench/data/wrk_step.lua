-- wrk script for bench/server.py: POST /sessions/<id>/step round-robin over the session ids in
-- the file named by WRK_SESSIONS (one a line). Requests on one session are spread by the rest
-- (1,024 sessions, 64 connections), so a session never has two steps in flight. Every
-- `episode`-th visit to a session is a reset instead, so no episode reaches its step cap;
-- WRK_OFFSET (the requests earlier runs sent to the same sessions) carries the count over.
local ids = {}
local n = tonumber(os.getenv("WRK_OFFSET") or "0")
local episode = tonumber(os.getenv("WRK_EPISODE") or "40")
local action = os.getenv("WRK_ACTION") or "look"
local step_body = '{"action": "' .. action .. '"}'

function init(args)
  for line in io.lines(os.getenv("WRK_SESSIONS")) do
    ids[#ids + 1] = line
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local sid = ids[(n % #ids) + 1]
  local visit = math.floor(n / #ids)
  n = n + 1
  if visit % episode == episode - 1 then
    return wrk.format("POST", "/sessions/" .. sid .. "/reset", nil, "{}")
  end
  return wrk.format("POST", "/sessions/" .. sid .. "/step", nil, step_body)
end

local non2xx = 0
function response(status, headers, body)
  if status ~= 200 then
    non2xx = non2xx + 1
    if non2xx <= 3 then io.stderr:write("wrk: status " .. status .. " " .. body .. "\n") end
  end
end
