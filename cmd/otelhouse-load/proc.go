package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"
)

// procSample is a process's CPU time and memory at one instant, read
// from /proc (zero elsewhere).
type procSample struct {
	at       time.Time
	cpu      time.Duration // user and system
	rssMB    float64
	rssHWMMB float64 // the peak resident set since the process began
	ok       bool
}

// clockTick is USER_HZ, which /proc/PID/stat counts in; Linux fixes it at
// 100 on every architecture the project builds for.
const clockTick = 100

func sampleProc(pid int) procSample {
	s := procSample{at: time.Now()}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return s
	}
	// The command name may hold spaces: fields count from after its ')'.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return s
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	s.cpu = time.Duration((utime + stime) / clockTick * float64(time.Second))
	s.ok = true
	st, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return s
	}
	defer func() { _ = st.Close() }()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		name, v, _ := strings.Cut(sc.Text(), ":")
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch name {
		case "VmRSS":
			s.rssMB = kb / 1024
		case "VmHWM":
			s.rssHWMMB = kb / 1024
		}
	}
	return s
}

// hostCPU is the host's busy and total CPU time so far, in ticks.
func hostCPU() (busy, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for i, f := range strings.Fields(line)[1:] {
		v, _ := strconv.ParseFloat(f, 64)
		total += v
		if i != 3 && i != 4 { // idle and iowait
			busy += v
		}
	}
	return busy, total
}
