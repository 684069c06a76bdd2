package winlimit_test

import (
	"context"
	"fmt"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

// The memory limiter makes the module's decisions in this process (a fallback, or tests).
func ExampleMemoryLimiter() {
	limiter := winlimit.NewMemory()
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		d, _ := limiter.Slide(ctx, "sms:+4915112345678", []winlimit.Window{{Length: time.Hour, Limit: 3}})
		fmt.Println(d.Allowed, d.Remaining)
	}
	// Output:
	// true 2
	// true 1
	// true 0
	// false 0
}
