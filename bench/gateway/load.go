package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// serveBackend answers every request 200 with a short body: the routes' one upstream.
func serveBackend() (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }, nil
}

// result is one round of one route.
type result struct {
	requests int
	elapsed  time.Duration
	p50, p99 time.Duration
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// load sends GET url for d from conns keep-alive connections, each request with the next of
// keys distinct X-Key values; any answer but 200 fails the round.
func load(url string, conns, keys int, d time.Duration) (result, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	lat := make([][]time.Duration, conns)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	begin := time.Now()
	end := begin.Add(d)
	for w := range conns {
		wg.Go(func() {
			lat[w], errs[w] = worker(client, url, w, conns, keys, end)
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	all := slices.Concat(lat...)
	for _, err := range errs {
		if err != nil {
			return result{}, err
		}
	}
	if len(all) == 0 {
		return result{}, fmt.Errorf("%s: no request completed", url)
	}
	slices.Sort(all)
	return result{requests: len(all), elapsed: elapsed, p50: quantile(all, 0.50), p99: quantile(all, 0.99)}, nil
}

// worker w uses keys w, w+conns, w+2*conns, ... (mod keys): the workers together rotate over all.
func worker(client *http.Client, url string, w, conns, keys int, end time.Time) ([]time.Duration, error) {
	var lat []time.Duration
	for i := w; time.Now().Before(end); i += conns {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Key", "k"+strconv.Itoa(i%keys))
		t := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: answered %d", url, resp.StatusCode)
		}
		lat = append(lat, time.Since(t))
	}
	return lat, nil
}

// quantile of sorted, nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
