-- SPDX-License-Identifier: MIT
--
-- bench.lua - the workload of bench/run.sh's "real program" case: the Lua
-- interpreter, built with the bench's flags, runs this script.  Nearly
-- every step calls small C functions of the interpreter (table access,
-- string interning, the garbage collector, the sort's comparisons): about
-- 38 million traced calls in all, with N = 27 and M = 200000.
--
--   lua bench.lua [N [M]]
--
-- The last line of the output is "cpu_ns N": the interpreter's CPU time
-- for the work (os.clock), in nanoseconds.

local n = tonumber(arg and arg[1]) or 27
local m = tonumber(arg and arg[2]) or 200000
local t0 = os.clock()

local function fib(k)
	if k < 2 then return k end
	return fib(k - 1) + fib(k - 2)
end

local t = {}
for i = 1, m do t[#t + 1] = tostring(i) .. "x" end
table.sort(t)
local s = 0
for i = 1, #t do s = s + #t[i] end
print(fib(n), s)
print(string.format("cpu_ns %d", math.floor((os.clock() - t0) * 1e9)))
