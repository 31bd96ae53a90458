package io.steward.operator;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Steward: a Kubernetes operator for WebApp resources. This package composes the operator: a generic
 * controller runtime ({@code runtime}) and the WebApp domain ({@code webapp}), assembled by one
 * configuration per concern (client, controller, lifecycle, endpoints).
 */
@SpringBootApplication
public class StewardApplication {
  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(StewardApplication.class, args);
    new ProcessExit(context).onSignals();
  }
}
