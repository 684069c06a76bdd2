module github.com/winlimit/winlimit/examples/go-chi

go 1.26.0

require (
	github.com/redis/go-redis/v9 v9.23.0
	github.com/winlimit/winlimit/clients/go v0.0.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-chi/chi/v5 v5.5.0
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/winlimit/winlimit/clients/go => ../../clients/go
