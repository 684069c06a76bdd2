package httplimit_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/httplimit"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// 100 requests a minute per client address on every route of a mux (with chi:
// r.Use(mw.Handler)), served to a real HTTP client. Shown in clients/go/README.md.
func ExampleNew() {
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })

	limiter, err := winlimit.New(rdb, winlimit.WithFallback(winlimit.NewMemory()))
	if err != nil {
		log.Fatal(err)
	}
	mw, err := httplimit.New(limiter, httplimit.Slide(winlimit.Window{Length: time.Minute, Limit: 100}))
	if err != nil {
		log.Fatal(err)
	}
	handler := mw.Handler(mux) // http.ListenAndServe(addr, handler); with chi, r.Use(mw.Handler)

	app := httptest.NewServer(handler)
	defer app.Close()
	res, err := http.Get(app.URL)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("RateLimit"))
	// Output: 200 "winlimit";r=99;t=60
}
