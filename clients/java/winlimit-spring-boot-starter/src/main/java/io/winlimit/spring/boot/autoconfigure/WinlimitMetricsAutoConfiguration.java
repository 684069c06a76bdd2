package io.winlimit.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.micrometer.core.instrument.MeterRegistry;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.spring.boot.internal.metrics.MicrometerWinlimitMeters;

/** winlimit's Micrometer meters, on the application's registry (never the static one). Boot
 * 3.5 and 4.0 name the metrics auto-configurations differently: both are named. */
@AutoConfiguration(afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public class WinlimitMetricsAutoConfiguration {

    /**
     * The meters of the web limiting and the limiter, in the application's registry.
     *
     * @param registry the application's registry
     * @return the meters
     */
    @Bean
    @ConditionalOnMissingBean
    public WinlimitMeters winlimitMeters(MeterRegistry registry) {
        return new MicrometerWinlimitMeters(registry);
    }
}
