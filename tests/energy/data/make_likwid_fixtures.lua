--[[
make_likwid_fixtures.lua - writes the likwid-perfctr CSV fixtures in this folder with
likwid's OWN output code: it loads the installed likwid.lua (likwid 5.x, Debian package
"likwid"), replaces only the functions that would talk to the hardware (CPU info, clock,
group/event/metric names and the marker-region bookkeeping) with the values of a
scenario below, sets use_csv (what `likwid-perfctr -O` / `-o FILE.csv` do) and calls
likwid.printOutput(), the function likwid-perfctr itself calls for a plain run (once)
and for a marker run (once per region). So the files are byte for byte what
likwid-perfctr -O writes for those readings.

  lua5.3 make_likwid_fixtures.lua SCENARIO > SCENARIO.csv

Scenarios: skx_plain_1core, skx_marker_1core, skx_marker_2socket, zen3_marker_2core,
           skx_plain_2socket
]]
package.path = '/usr/share/lua/?.lua;' .. package.path
local likwid = require("likwid")

-- ENERGY groups as in likwid's groups/skylakeX/ENERGY.txt and groups/zen3/ENERGY.txt
local groups = {
  skylakeX = {
    events = {{"INSTR_RETIRED_ANY", "FIXC0"}, {"CPU_CLK_UNHALTED_CORE", "FIXC1"},
              {"CPU_CLK_UNHALTED_REF", "FIXC2"}, {"TEMP_CORE", "TMP0"},
              {"PWR_PKG_ENERGY", "PWR0"}, {"PWR_PP0_ENERGY", "PWR1"},
              {"PWR_DRAM_ENERGY", "PWR3"}},
    metrics = {"Runtime (RDTSC) [s]", "Runtime unhalted [s]", "Clock [MHz]", "CPI",
               "Temperature [C]", "Energy [J]", "Power [W]", "Energy PP0 [J]",
               "Power PP0 [W]", "Energy DRAM [J]", "Power DRAM [W]"},
    osname = "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
    name = "Intel Skylake SP processor",
    clock = 2400000000,
  },
  zen3 = {
    events = {{"ACTUAL_CPU_CLOCK", "FIXC1"}, {"MAX_CPU_CLOCK", "FIXC2"},
              {"RETIRED_INSTRUCTIONS", "PMC0"}, {"CPU_CLOCKS_UNHALTED", "PMC1"},
              {"RAPL_CORE_ENERGY", "PWR0"}, {"RAPL_PKG_ENERGY", "PWR1"}},
    metrics = {"Runtime (RDTSC) [s]", "Runtime unhalted [s]", "Clock [MHz]", "CPI",
               "Energy Core [J]", "Power Core [W]", "Energy PKG [J]", "Power PKG [W]"},
    osname = "AMD EPYC 7763 64-Core Processor",
    name = "AMD K19 (Zen3) architecture",
    clock = 2450000000,
  },
}

-- per HW thread: time [s], calls, instr, cycles(core), cycles(ref), temp, pkg J, pp0/core J, dram J
-- RAPL package and DRAM counters are socket-wide: likwid reads them on one HW thread per
-- socket (the socket lock holder) and reports 0 on the others.
local scenarios = {
  skx_plain_1core = {arch = "skylakeX", region = nil, cpus = {0},
    t = {{1.523419, 1, 6.1e9, 3.6e9, 3.65e9, 47, 98.3125, 61.0742, 9.8811}}},
  skx_marker_1core = {arch = "skylakeX", region = "aes", cpus = {0},
    t = {{0.402771, 4, 1.62e9, 9.61e8, 9.66e8, 49, 27.1187, 17.4402, 2.6543}}},
  skx_marker_2socket = {arch = "skylakeX", region = "aes", cpus = {0, 1, 20, 21},
    t = {{0.212244, 4, 8.5e8, 5.1e8, 5.09e8, 51, 16.4023, 9.3385, 1.4021},
         {0.211873, 4, 8.4e8, 5.08e8, 5.07e8, 50, 0, 0, 0},
         {0.212908, 4, 8.6e8, 5.11e8, 5.1e8, 46, 14.9731, 8.1205, 1.3312},
         {0.212035, 4, 8.5e8, 5.09e8, 5.08e8, 47, 0, 0, 0}}},
  skx_plain_2socket = {arch = "skylakeX", region = nil, cpus = {0, 20},
    t = {{2.000734, 1, 7.5e9, 4.7e9, 4.8e9, 52, 130.5, 80.25, 12.125},
         {2.000734, 1, 7.4e9, 4.69e9, 4.79e9, 49, 121.75, 77.5, 11.0625}}},
  -- Zen3: RAPL_CORE_ENERGY is per core, RAPL_PKG_ENERGY per socket.
  zen3_marker_2core = {arch = "zen3", region = "aes", cpus = {0, 1},
    t = {{0.301512, 4, 1.2e9, 7.3e8, 7.4e8, 0, 31.8215, 5.2231, 0},
         {0.301344, 4, 1.19e9, 7.29e8, 7.38e8, 0, 0, 5.0117, 0}}},
}

local name = arg[1]
local s = assert(scenarios[name], "unknown scenario " .. tostring(name))
local g = groups[s.arch]

-- hardware-facing functions replaced by the scenario
likwid_getCpuInfo = function() return {osname = g.osname, name = g.name} end
likwid.getCpuClock = function() return g.clock end
likwid.getNameOfGroup = function(gid) return "ENERGY" end
likwid.getRuntimeOfGroup = function(gid) return s.t[1][1] end
likwid.getNumberOfMetrics = function(gid) return #g.metrics end
likwid.getNameOfMetric = function(gid, m) return g.metrics[m] end
likwid.getNameOfEvent = function(gid, e) return g.events[e][1] end
likwid.getNameOfCounter = function(gid, e) return g.events[e][2] end
likwid.markerRegionTag = function(r) return s.region end
likwid.markerRegionThreads = function(r) return #s.cpus end
likwid.markerRegionCpulist = function(r) return s.cpus end
likwid.markerRegionTime = function(r, c) return s.t[c][1] end
likwid.markerRegionCount = function(r, c) return s.t[c][2] end

local inverse_clock = 1.0 / g.clock
local events, metrics = {}, {}
for e = 1, #g.events do events[e] = {} end
for m = 1, #g.metrics do metrics[m] = {} end
for c, row in ipairs(s.t) do
  local time, _, instr, core, ref, temp, pkg, pp0, dram = table.unpack(row)
  local vals
  if s.arch == "skylakeX" then
    vals = {instr, core, ref, temp, pkg, pp0, dram}
    local mv = {time, core * inverse_clock, 1.E-06 * (core / ref) / inverse_clock,
                core / instr, temp, pkg, pkg / time, pp0, pp0 / time, dram, dram / time}
    for m = 1, #mv do metrics[m][c] = mv[m] end
  else
    -- zen3: FIXC1 ACTUAL_CPU_CLOCK, FIXC2 MAX_CPU_CLOCK, PMC0 instr, PMC1 cycles
    vals = {core, ref, instr, core, pp0, pkg}
    local mv = {time, core * inverse_clock, 1.E-06 * (core / ref) / inverse_clock,
                core / instr, pp0, pp0 / time, pkg, pkg / time}
    for m = 1, #mv do metrics[m][c] = mv[m] end
  end
  for e = 1, #vals do events[e][c] = vals[e] end
end

use_csv = true
likwid.printOutput({events}, {metrics}, s.cpus, s.region, false)
