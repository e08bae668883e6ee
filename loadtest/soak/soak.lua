-- SPDX-License-Identifier: Apache-2.0
-- Copyright 2026 The reap project authors (see NOTICE).
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
-- and the fate of every request sent, summed over the threads:
--   ACCOUNT <sent> <answered> <lost> <in flight>
-- where sent = answered + lost + in flight always: a request is lost when
-- its connection broke before its answer came (wrk then asks request() for
-- the next one with this one still unanswered), in flight when wrk stopped
-- before its answer came (at most one per thread).
--
-- wrk (4.1) calls request() once more than it sends, in the first thread
-- before it starts, to check the request: that call is not counted.  Were
-- it a real one after all, its answer counts it (response() with nothing
-- pending), so the account adds up either way.

local kinds = {}
local total_weight = 0
local current
-- Global and flat (kind:sent, kind:passed, kind:failed, kind:first), because
-- done() reads it from each thread with get(), which copies scalars safely.
counts = {}
-- Per thread, global for the same reason: requests lost, and 1 while a
-- request waits for its answer.
lost = 0
pending = 0
local first_call
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
    first_call = thread_id == 1
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
    if first_call then -- wrk's check, not sent (see above)
        first_call = false
        return current.request
    end
    if pending == 1 then
        lost = lost + 1
    end
    pending = 1
    local key = current.name .. ":sent"
    counts[key] = counts[key] + 1
    return current.request
end

function response(status, headers, body)
    local k = current
    local why
    if pending == 0 then -- the first call was sent after all
        counts[k.name .. ":sent"] = counts[k.name .. ":sent"] + 1
    end
    pending = 0
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
    local sent, answered, lost_all, in_flight = 0, 0, 0, 0
    for _, t in ipairs(threads) do
        lost_all = lost_all + t:get("lost")
        in_flight = in_flight + t:get("pending")
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
        sent = sent + s.sent
        answered = answered + s.passed + s.failed
    end
    print(string.format("ACCOUNT %d %d %d %d", sent, answered, lost_all, in_flight))
    print(string.format("TOTAL %d %.3f %d %d %d %d %d", summary.requests,
                        summary.duration / 1e6, latency.max,
                        summary.errors.connect + summary.errors.read +
                        summary.errors.write, summary.errors.timeout,
                        summary.errors.status, latency:percentile(99)))
end
