// Package winlimit is the Go client of winlimit: exact, atomic rate limits decided by the
// Redis server on its own clock (the winlimit module's WINLIMIT.SLIDE, WINLIMIT.FIXED and
// WINLIMIT.GCRA, or the same code as a Functions library or as scripts where the module is
// not loaded).
//
// New takes the application's go-redis client (a plain client, a cluster client, a failover
// client or a ring) and does no I/O; each decision is one call to Redis:
//
//	limiter, err := winlimit.New(rdb) // a bad option is refused here
//	if err != nil {
//		log.Fatal(err)
//	}
//	d, err := limiter.Slide(ctx, "sms:+4915112345678", []winlimit.Window{{Length: time.Hour, Limit: 3}})
//	if err == nil && !d.Allowed {
//		// d.RetryAfter says when to come back; d.Headers() gives the response fields
//	}
package winlimit
