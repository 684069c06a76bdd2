package winprom_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
	"github.com/winlimit/winlimit/clients/go/winprom"
)

// Every decision of the limiter counted once, by policy and outcome. Shown in
// clients/go/README.md, "Metrics".
func ExampleNew() {
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})

	metrics := winprom.New()
	prometheus.MustRegister(metrics) // once; one Collector can serve several limiters
	limiter, err := winlimit.New(rdb, winlimit.WithObserver(metrics))
	if err != nil {
		panic(err)
	}

	for i := 0; i < 4; i++ {
		limiter.Slide(context.Background(), "k", []winlimit.Window{{Length: time.Minute, Limit: 3}})
	}
	families, err := prometheus.DefaultGatherer.Gather()
	for _, family := range families {
		if family.GetName() == "winlimit_decisions_total" {
			for _, m := range family.GetMetric() {
				fmt.Println(m.GetLabel()[0].GetValue(), m.GetCounter().GetValue()) // outcome, count
			}
		}
	}
	fmt.Println(err)
	// Output:
	// allowed 3
	// rejected 1
	// <nil>
}
