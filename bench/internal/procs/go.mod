module github.com/winlimit/winlimit/bench/internal/procs

go 1.26.8
