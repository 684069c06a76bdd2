// A program outside the module that uses it as an application would, through a replace
// directive: built by the client's tests (consumer_test.go).
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/httplimit"
	"github.com/winlimit/winlimit/clients/go/redisrate"
)

func main() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	limiter, err := winlimit.New(rdb, winlimit.WithFallback(winlimit.NewMemory()))
	if err != nil {
		log.Fatal(err)
	}
	d, err := limiter.Slide(context.Background(), "sms:+4915112345678", []winlimit.Window{{Length: time.Hour, Limit: 3}})
	fmt.Println(d.Allowed, err)
	_ = redisrate.NewLimiter(rdb)
	mw, err := httplimit.New(limiter, httplimit.Fixed(time.Minute, 100))
	if err != nil {
		log.Fatal(err)
	}
	_ = mw.Handler(http.NotFoundHandler())
}
