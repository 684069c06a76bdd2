// Command winlimit-ratelimit is a drop-in for envoyproxy/ratelimit: the same configuration
// files and environment, each decision one winlimit call in Redis.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/winlimit/winlimit/services/ratelimit/internal/server"
	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

func main() {
	s, err := settings.FromEnv()
	log := logger(s)
	if err != nil {
		log.Error("refusing to start: " + strings.ReplaceAll(err.Error(), "\n", "; "))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := server.Run(ctx, s, log); err != nil {
		log.Error("refusing to start: " + err.Error())
		os.Exit(1)
	}
}

// logger follows LOG_LEVEL and LOG_FORMAT (text or json), as upstream's logrus does.
func logger(s settings.Settings) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(s.LogLevel))); err != nil {
		level = slog.LevelWarn
		defer slog.Warn(fmt.Sprintf("LOG_LEVEL %q is not debug, info, warn or error: warn", s.LogLevel))
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(s.LogFormat, "json") {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
