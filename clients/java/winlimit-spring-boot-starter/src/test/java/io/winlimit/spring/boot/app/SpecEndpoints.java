package io.winlimit.spring.boot.app;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.winlimit.spring.boot.annotation.RateLimit;

/**
 * One handler per case of clients/spec/middleware.json (a policy name is a literal, so each
 * case gets its own; MiddlewareSpecTest fails if the file outgrows them). Each case's policy,
 * spec0, spec1, ..., is made from the case itself at test time.
 */
@RestController
public class SpecEndpoints {
    /** How many cases the handlers serve. */
    public static final int CASES = 16;

    @RateLimit("spec0") @GetMapping("/spec/0") public String s0() { return "app"; }
    @RateLimit("spec1") @GetMapping("/spec/1") public String s1() { return "app"; }
    @RateLimit("spec2") @GetMapping("/spec/2") public String s2() { return "app"; }
    @RateLimit("spec3") @GetMapping("/spec/3") public String s3() { return "app"; }
    @RateLimit("spec4") @GetMapping("/spec/4") public String s4() { return "app"; }
    @RateLimit("spec5") @GetMapping("/spec/5") public String s5() { return "app"; }
    @RateLimit("spec6") @GetMapping("/spec/6") public String s6() { return "app"; }
    @RateLimit("spec7") @GetMapping("/spec/7") public String s7() { return "app"; }
    @RateLimit("spec8") @GetMapping("/spec/8") public String s8() { return "app"; }
    @RateLimit("spec9") @GetMapping("/spec/9") public String s9() { return "app"; }
    @RateLimit("spec10") @GetMapping("/spec/10") public String s10() { return "app"; }
    @RateLimit("spec11") @GetMapping("/spec/11") public String s11() { return "app"; }
    @RateLimit("spec12") @GetMapping("/spec/12") public String s12() { return "app"; }
    @RateLimit("spec13") @GetMapping("/spec/13") public String s13() { return "app"; }
    @RateLimit("spec14") @GetMapping("/spec/14") public String s14() { return "app"; }
    @RateLimit("spec15") @GetMapping("/spec/15") public String s15() { return "app"; }
}
