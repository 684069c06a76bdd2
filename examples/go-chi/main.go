// Go with chi: 3 SMS per hour per user, a sliding hour on the server's clock, through
// winlimit's net/http middleware (httplimit).
//
// Run: REDIS_URL=redis://127.0.0.1:6379 PORT=8000 go run . (in this folder).
// The fourth POST /sms/{user} within an hour gets a 429 with Retry-After.
package main

import (
	"encoding/json"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"
	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/httplimit"
)

func main() {
	options, err := redis.ParseURL(envOr("REDIS_URL", "redis://127.0.0.1:6379"))
	if err != nil {
		log.Fatal(err)
	}
	limiter, err := winlimit.New(redis.NewClient(options))
	if err != nil {
		log.Fatal(err)
	}
	router, err := newRouter(limiter)
	if err != nil {
		log.Fatal(err)
	}
	addr := "127.0.0.1:" + envOr("PORT", "8000")
	log.Printf("listening on http://%s", addr)
	log.Fatal(http.ListenAndServe(addr, router))
}

// newRouter serves POST /sms/{user}, limited per user.
func newRouter(limiter *winlimit.Limiter) (http.Handler, error) {
	// --8<-- [start:limit]
	threePerHour, err := httplimit.New(limiter, httplimit.Slide(winlimit.Window{Length: time.Hour, Limit: 3}),
		httplimit.WithKey(func(r *http.Request) (string, error) { return chi.URLParam(r, "user"), nil }),
		httplimit.WithPrefix("sms:"))
	if err != nil {
		return nil, err
	}
	router := chi.NewRouter()
	router.With(threePerHour.Handler).Post("/sms/{user}", sendSMS)
	// --8<-- [end:limit]
	return router, nil
}

func sendSMS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"sent_to": chi.URLParam(r, "user")})
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
