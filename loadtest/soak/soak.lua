-- soak.lua - wrk script of the soak test (loadtest/soak/soak.sh).
--
-- Usage: wrk -t N -c N -s soak.lua http://HOST:PORT/ -- MANIFEST SEED
-- with as many connections as threads, so each thread has one connection
-- and its responses come back in the order of its requests: the response
-- seen by response() answers the request last made by request().
--
-- MANIFEST has one line per kind of request:
--   <kind> <path> <weight> <statuses> <limit> <body file> <expected output file or ->
-- <statuses> is a comma-separated list of allowed statuses, <limit> the
-- X-Bc-Limit header a limit stop must carry ("-": none expected).  A kind
-- with an expected output file passes only with 200 and exactly that body.
-- done() prints one line per kind:
--   KIND <kind> <sent> <passed> <failed> <first failure or ->

local kinds = {}
local total_weight = 0
local current
-- Global and flat (kind:sent, kind:passed, kind:failed, kind:first), because
-- done() reads it from each thread with get(), which copies scalars safely.
counts = {}
local threads = {}

local function read_file(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("*a")
    f:close()
    return s
end

function setup(thread)
    table.insert(threads, thread)
    thread:set("thread_id", #threads)
end

function init(args)
    local seed = tonumber(args[2]) or 1
    for line in io.lines(args[1]) do
        local name, path, weight, statuses, limit, body, want =
            line:match("^(%S+) (%S+) (%d+) (%S+) (%S+) (%S+) (%S+)$")
        if name then
            local k = { name = name, weight = tonumber(weight), ok = {},
                        limit = limit, want = nil }
            for s in statuses:gmatch("%d+") do k.ok[tonumber(s)] = true end
            if want ~= "-" then k.want = read_file(want) end
            k.request = wrk.format("POST", path,
                { ["Content-Type"] = "text/plain" }, read_file(body))
            table.insert(kinds, k)
            total_weight = total_weight + k.weight
            counts[name .. ":sent"] = 0
            counts[name .. ":passed"] = 0
            counts[name .. ":failed"] = 0
            counts[name .. ":first"] = "-"
        end
    end
    -- Threads differ in what they send; runs with one seed repeat.
    math.randomseed(seed * 7919 + thread_id)
end

function request()
    local r = math.random(total_weight)
    for _, k in ipairs(kinds) do
        r = r - k.weight
        if r <= 0 then
            current = k
            break
        end
    end
    local key = current.name .. ":sent"
    counts[key] = counts[key] + 1
    return current.request
end

function response(status, headers, body)
    local k = current
    local why
    if not k.ok[status] then
        why = "status " .. status
    elseif k.want and body ~= k.want then
        why = "wrong answer (" .. #body .. " bytes)"
    elseif k.limit ~= "-" and status ~= 200 and status ~= 400
           and headers["X-Bc-Limit"] ~= k.limit
           and not (k.limit == "any" and headers["X-Bc-Limit"]) then
        why = "X-Bc-Limit " .. tostring(headers["X-Bc-Limit"])
    end
    if why then
        counts[k.name .. ":failed"] = counts[k.name .. ":failed"] + 1
        if counts[k.name .. ":first"] == "-" then
            counts[k.name .. ":first"] = (why:gsub(" ", "_"))
        end
    else
        counts[k.name .. ":passed"] = counts[k.name .. ":passed"] + 1
    end
end

function done(summary, latency, requests)
    local sum, names = {}, {}
    for _, t in ipairs(threads) do
        local c = t:get("counts")
        for key, v in pairs(c) do
            local name, field = key:match("^(.*):(%a+)$")
            local s = sum[name]
            if not s then
                s = { sent = 0, passed = 0, failed = 0, first = "-" }
                sum[name] = s
                table.insert(names, name)
            end
            if field == "first" then
                if s.first == "-" then s.first = v end
            else
                s[field] = s[field] + v
            end
        end
    end
    for _, name in ipairs(names) do
        local s = sum[name]
        print(string.format("KIND %s %d %d %d %s", name, s.sent, s.passed,
                            s.failed, s.first))
    end
    print(string.format("TOTAL %d %.3f %d %d %d %d %d", summary.requests,
                        summary.duration / 1e6, latency.max,
                        summary.errors.connect + summary.errors.read +
                        summary.errors.write, summary.errors.timeout,
                        summary.errors.status, latency:percentile(99)))
end
