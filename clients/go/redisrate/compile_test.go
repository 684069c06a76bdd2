package redisrate_test

import (
	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/redisrate"
)

// Every client redis_rate users pass compiles here.
var (
	_ = redisrate.NewLimiter((*redis.Client)(nil))
	_ = redisrate.NewLimiter((*redis.ClusterClient)(nil))
	_ = redisrate.NewLimiter((*redis.Ring)(nil))
	_ = redisrate.NewLimiter(redis.UniversalClient(nil))
)
