module github.com/winlimit/winlimit/examples/go-grpc

go 1.26.0

require (
	github.com/redis/go-redis/v9 v9.23.0
	github.com/winlimit/winlimit/clients/go v0.0.0
	github.com/winlimit/winlimit/clients/go/grpclimit v0.0.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace (
	github.com/winlimit/winlimit/clients/go => ../../clients/go
	github.com/winlimit/winlimit/clients/go/grpclimit => ../../clients/go/grpclimit
)
