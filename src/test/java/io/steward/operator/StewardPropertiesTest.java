package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** Bad settings stop the operator at start-up with a message that names the property. */
class StewardPropertiesTest {
  @Configuration
  @EnableConfigurationProperties(StewardProperties.class)
  static class PropertiesOnly {}

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withUserConfiguration(PropertiesOnly.class);

  @Test
  void defaultsAreValid() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      StewardProperties properties = context.getBean(StewardProperties.class);
      assertThat(properties.getWorkers()).isEqualTo(8);
      assertThat(properties.getLeaderElection().getLeaseDuration().toSeconds()).isEqualTo(15);
      assertThat(properties.getLeaderElection().getRenewDeadline().toSeconds()).isEqualTo(10);
      assertThat(properties.getLeaderElection().getRetryPeriod().toSeconds()).isEqualTo(2);
    });
  }

  @Test
  void workersOutOfRange() {
    assertFailure("steward.workers=0", "steward.workers");
  }

  @Test
  void inconsistentLeaderElectionTimings() {
    assertFailure("steward.leader-election.renew-deadline=20s", "lease-duration > renew-deadline > retry-period");
  }

  @Test
  void badNamespaceName() {
    assertFailure("steward.namespaces=Not_A_Namespace", "steward.namespaces[0]");
  }

  @Test
  void missingKubeconfigFile() {
    assertFailure("steward.kubeconfig=/no/such/kubeconfig", "steward.kubeconfig names a file that does not exist");
  }

  @Test
  void badLeaseNameAndNamespace() {
    assertFailure("steward.leader-election.lease-name=Leader!", "steward.leader-election.lease-name must be a Lease name");
    assertFailure("steward.leader-election.lease-namespace=-x", "steward.leader-election.lease-namespace must be a namespace");
  }

  @Test
  void tooShortPeriods() {
    assertFailure("steward.resync-period=500ms", "steward.resync-period must be at least 1s");
    assertFailure("steward.credential-refresh-period=0s", "steward.credential-refresh-period must be at least 1s");
  }

  @Test
  void bucketsOutOfRange() {
    assertFailure("steward.sharding.buckets=1025", "steward.sharding.buckets must be between 1 and 1024");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    runner.withPropertyValues("steward.workers=0", "steward.sharding.buckets=0").run(context ->
        assertThat(messages(context.getStartupFailure())).contains("steward.workers must be", "steward.sharding.buckets must be"));
  }

  @Test
  void unparsableDuration() {
    assertFailure("steward.resync-period=often", "steward.resync-period");
  }

  private void assertFailure(String property, String expectedInMessage) {
    runner.withPropertyValues(property).run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context.getStartupFailure())).contains(expectedInMessage);
    });
  }

  private static String messages(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
