module github.com/winlimit/winlimit/bench/gateway

go 1.26.8

require github.com/winlimit/winlimit/bench/internal/procs v0.0.0

// The drivers' shared process handling, from this tree.
replace github.com/winlimit/winlimit/bench/internal/procs => ../internal/procs
