package io.steward.operator;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class StewardApplication {
  public static void main(String[] args) {
    SpringApplication.run(StewardApplication.class, args);
  }
}
