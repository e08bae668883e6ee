-- SPDX-License-Identifier: Apache-2.0
-- Copyright 2026 The reap project authors (see NOTICE).
-- scenario.lua - the wrk script of the httpd load tests (loadtest/wrk/run.sh).
--
-- run.sh writes a plan, one request kind per line (tab-separated: name,
-- weight, method, path, body file or "-", expected status, file of the
-- expected body or "-"), and names it in WRK_PLAN.  Each wrk thread sends
-- the kinds in a fixed interleaved cycle (smooth weighted round robin), so
-- a mix of 10 small : 4 medium : 1 bad keeps those proportions at every
-- moment of the run.  With WRK_CHECK=1 every response is classified: its
-- status, its X-Bc-Limit header, and for a 200 whether the body is exactly
-- one of the expected bodies.  done() prints the figures run.sh parses, as
-- "WRK <key> <values...>" lines.
--
-- Counters are plain numeric globals read with thread:get() one by one:
-- wrk 4.1's copy of a whole table between Lua states drops keys.

local plan_file = os.getenv("WRK_PLAN")
local check = os.getenv("WRK_CHECK") == "1"
local limits = { "none", "time", "memory", "depth", "output", "program-size", "other" }
local threads = {}
local kinds = {}       -- { name, weight, method, path, body, status, expect }
local cycle = {}       -- kind indices in sending order
local pos = 1

local function slurp(path)
    local f = assert(io.open(path, "rb"), "cannot read " .. path)
    local s = f:read("*a")
    f:close()
    return s
end

local function split_tabs(line)
    local t = {}
    for field in string.gmatch(line, "[^\t]+") do t[#t + 1] = field end
    return t
end

local function read_plan()
    assert(plan_file, "WRK_PLAN is not set")
    for line in io.lines(plan_file) do
        if not string.match(line, "^#") and string.match(line, "%S") then
            local f = split_tabs(line)
            kinds[#kinds + 1] = {
                name = f[1], weight = tonumber(f[2]), method = f[3], path = f[4],
                body = f[5] ~= "-" and slurp(f[5]) or nil,
                status = tonumber(f[6]),
                expect = f[7] ~= "-" and slurp(f[7]) or nil,
            }
        end
    end
    assert(#kinds > 0, "empty plan " .. plan_file)
end

-- Smooth weighted round robin: the heaviest kind never comes in a burst.
local function build_cycle()
    local total, current = 0, {}
    for i, k in ipairs(kinds) do total = total + k.weight; current[i] = 0 end
    for _ = 1, total do
        local best = 1
        for i, k in ipairs(kinds) do
            current[i] = current[i] + k.weight
            if current[i] > current[best] then best = i end
        end
        current[best] = current[best] - total
        cycle[#cycle + 1] = best
    end
end

local function format_kind(k)
    local headers = {}
    if k.body then headers["Content-Type"] = "text/plain" end
    return wrk.format(k.method, k.path, headers, k.body)
end

-- ---- the setup and done phases (wrk's main Lua state) ----------------

local thread_count = 0
function setup(thread)
    thread_count = thread_count + 1
    thread:set("id", thread_count)
    threads[#threads + 1] = thread
end

local function sum_over_threads(name)
    local n = 0
    for _, t in ipairs(threads) do n = n + (t:get(name) or 0) end
    return n
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        "WRK summary requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
        summary.requests, summary.duration, summary.bytes,
        e.connect, e.read, e.write, e.status, e.timeout))
    io.write(string.format("WRK latency p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%d\n",
        latency:percentile(50), latency:percentile(90), latency:percentile(99),
        latency.max, latency.mean))
    if not check then return end
    read_plan()
    for _, k in ipairs(kinds) do
        io.write(string.format("WRK sent %s %d\n", k.name, sum_over_threads("sent_" .. k.name)))
        io.write(string.format("WRK ok %s %d\n", k.name, sum_over_threads("ok_" .. k.name)))
    end
    for code = 100, 599 do
        local n = sum_over_threads("st" .. code)
        if n > 0 then io.write(string.format("WRK status %d %d\n", code, n)) end
        if code ~= 200 then
            for _, l in ipairs(limits) do
                n = sum_over_threads("lim" .. code .. "_" .. l)
                if n > 0 then io.write(string.format("WRK limit %d %s %d\n", code, l, n)) end
            end
        end
    end
    io.write(string.format("WRK badbody %d\n", sum_over_threads("badbody")))
    for _, t in ipairs(threads) do
        local s = t:get("badsample")
        if s then
            io.write("WRK badsample " .. string.gsub(string.sub(s, 1, 200), "%c", "?") .. "\n")
            break
        end
    end
end

-- ---- the running phase (one Lua state per wrk thread) ----------------

local requests_of = {}

function init(args)
    read_plan()
    build_cycle()
    for i, k in ipairs(kinds) do requests_of[i] = format_kind(k) end
    pos = ((id or 1) - 1) * 7 % #cycle + 1
    if not check then
        response = nil
        if #kinds == 1 then
            -- one fixed request: wrk formats it once and sends it as is
            local k = kinds[1]
            request = nil
            wrk.method, wrk.path, wrk.body = k.method, k.path, k.body
            if k.body then wrk.headers["Content-Type"] = "text/plain" end
        end
    end
end

function request()
    local i = cycle[pos]
    pos = pos % #cycle + 1
    local key = "sent_" .. kinds[i].name
    _G[key] = (_G[key] or 0) + 1
    return requests_of[i]
end

local function bump(key)
    _G[key] = (_G[key] or 0) + 1
end

local function limit_of(headers)
    for name, value in pairs(headers) do
        if string.lower(name) == "x-bc-limit" then
            for _, l in ipairs(limits) do
                if l == value then return value end
            end
            return "other"
        end
    end
    return "none"
end

function response(status, headers, body)
    bump("st" .. status)
    if status ~= 200 then
        bump("lim" .. status .. "_" .. limit_of(headers))
        return
    end
    for _, k in ipairs(kinds) do
        if k.expect and k.expect == body then
            bump("ok_" .. k.name)
            return
        end
    end
    bump("badbody")
    if not badsample then badsample = body end
end
