module github.com/winlimit/winlimit/bench/gateway

go 1.26.8
