// Package migration holds the "before" of docs/migration/redis-rate.md: redis_rate's own
// calls, run by go test on a real Redis beside redisrate's "after", so the page's before and
// after are both code CI runs. A module of its own so that the client's go.mod never
// requires redis_rate.
package migration
