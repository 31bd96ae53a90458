package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.webapp.WebAppStatusCalculator.Observation;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.operator.webapp.api.WebAppStatus;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebAppStatusCalculatorTest {
  private static final OffsetDateTime NOW = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  private final WebAppStatusCalculator calculator = new WebAppStatusCalculator();

  private static V1Deployment deployment(long generation, Long observed, int replicas, int updated, int available) {
    return new V1Deployment().metadata(new V1ObjectMeta().name("shop").generation(generation))
        .spec(new V1DeploymentSpec().replicas(replicas))
        .status(new V1DeploymentStatus().observedGeneration(observed).replicas(replicas).updatedReplicas(updated)
            .readyReplicas(available).availableReplicas(available));
  }

  private WebAppStatus compute(WebApp webApp, V1Deployment deployment, Problem problem) {
    return calculator.compute(new Observation(webApp, deployment, null, problem), NOW);
  }

  @Test
  void noDeploymentYetIsPending() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), null, null);
    assertThat(status.phase()).isEqualTo(Phase.Pending);
    assertThat(status.observedGeneration()).isEqualTo(3L);
    assertThat(Conditions.find(status.conditions(), "Ready").getReason()).isEqualTo("Creating");
    assertThat(Conditions.isTrue(status.conditions(), "Progressing")).isTrue();
  }

  @Test
  void aRolloutInProgressIsProgressing() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(2, 2L, 2, 1, 1), null);
    assertThat(status.phase()).isEqualTo(Phase.Progressing);
    assertThat(Conditions.find(status.conditions(), "Ready").getMessage()).isEqualTo("1 of 2 replicas available");
  }

  @Test
  void anUnobservedDeploymentGenerationIsNotReadyEvenWithAvailablePods() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(3, 2L, 2, 2, 2), null);
    assertThat(status.phase()).isEqualTo(Phase.Progressing);
  }

  @Test
  void aCompleteRolloutIsReadyWithEveryCount() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(2, 2L, 2, 2, 2), null);
    assertThat(status.phase()).isEqualTo(Phase.Ready);
    assertThat(status.availableReplicas()).isEqualTo(2);
    assertThat(status.readyReplicas()).isEqualTo(2);
    assertThat(status.selector()).isEqualTo("app.kubernetes.io/name=webapp,app.kubernetes.io/instance=shop");
    assertThat(Conditions.isTrue(status.conditions(), "Ready")).isTrue();
    assertThat(Conditions.isTrue(status.conditions(), "Progressing")).isFalse();
    assertThat(Conditions.isTrue(status.conditions(), "Degraded")).isFalse();
  }

  @Test
  void progressDeadlineExceededIsDegradedWithTheDeploymentsMessage() {
    V1Deployment stuck = deployment(2, 2L, 2, 2, 0);
    stuck.getStatus().conditions(List.of(new V1DeploymentCondition().type("Progressing").status("False")
        .reason("ProgressDeadlineExceeded").message("ReplicaSet \"shop-1\" has timed out progressing.")));
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), stuck, null);
    assertThat(status.phase()).isEqualTo(Phase.Degraded);
    assertThat(Conditions.find(status.conditions(), "Degraded").getReason()).isEqualTo("ProgressDeadlineExceeded");
    assertThat(Conditions.find(status.conditions(), "Degraded").getMessage()).contains("timed out progressing");
  }

  @Test
  void aProblemIsDegradedWithItsReason() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), null,
        Problem.conflict("Deployment", "shop"));
    assertThat(status.phase()).isEqualTo(Phase.Degraded);
    assertThat(Conditions.find(status.conditions(), "Degraded").getReason()).isEqualTo("ResourceConflict");
    assertThat(Conditions.isTrue(status.conditions(), "Progressing")).isFalse();
  }

  @Test
  void pausedWins() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec().withPaused(true)),
        deployment(2, 2L, 2, 2, 2), null);
    assertThat(status.phase()).isEqualTo(Phase.Paused);
    assertThat(Conditions.find(status.conditions(), "Progressing").getReason()).isEqualTo("Paused");
  }

  @Test
  void theSameObservationLaterGivesAnEqualStatusSoNothingIsWritten() {
    WebApp webApp = DesiredStateTest.webApp(DesiredStateTest.spec());
    WebAppStatus first = compute(webApp, deployment(2, 2L, 2, 2, 2), null);
    webApp.status(first);
    WebAppStatus second = calculator.compute(new Observation(webApp, deployment(2, 2L, 2, 2, 2), null, null),
        NOW.plusHours(1));
    assertThat(second).isEqualTo(first);
  }

  // Reconciling and Stalled, the abnormal-true conditions kstatus reads: never both True.

  private static void assertAbnormal(WebAppStatus status, boolean reconciling, boolean stalled) {
    assertThat(Conditions.isTrue(status.conditions(), "Reconciling")).as("Reconciling").isEqualTo(reconciling);
    assertThat(Conditions.isTrue(status.conditions(), "Stalled")).as("Stalled").isEqualTo(stalled);
    assertThat(status.conditions()).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(3L));
  }

  @Test
  void creatingAndRollingOutAreReconciling() {
    assertAbnormal(compute(DesiredStateTest.webApp(DesiredStateTest.spec()), null, null), true, false);
    assertAbnormal(compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(2, 2L, 2, 1, 1), null),
        true, false);
  }

  @Test
  void readyAndPausedAreNeitherReconcilingNorStalled() {
    assertAbnormal(compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(2, 2L, 2, 2, 2), null),
        false, false);
    assertAbnormal(compute(DesiredStateTest.webApp(DesiredStateTest.spec().withPaused(true)),
        deployment(2, 2L, 2, 1, 1), null), false, false);
  }

  @Test
  void aConflictIsStalledWithItsReasonAndMessage() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), null,
        Problem.conflict("Deployment", "shop"));
    assertAbnormal(status, false, true);
    assertThat(Conditions.find(status.conditions(), "Stalled").getReason()).isEqualTo("ResourceConflict");
    assertThat(Conditions.find(status.conditions(), "Stalled").getMessage()).contains("Deployment shop");
  }

  @Test
  void aSpecStewardCannotBuildIsStalledAndTerminal() {
    Problem problem = Problem.unbuildable("Deployment", new IllegalArgumentException("No suffix for exponent-12"));
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), null, problem);
    assertThat(problem.terminal()).isTrue();
    assertThat(status.phase()).isEqualTo(Phase.Degraded);
    assertAbnormal(status, false, true);
    assertThat(Conditions.find(status.conditions(), "Stalled").getReason()).isEqualTo("InvalidSpec");
    assertThat(Conditions.find(status.conditions(), "Stalled").getMessage()).contains("No suffix for exponent");
  }

  @Test
  void progressDeadlineExceededIsStalledButNotTerminal() {
    V1Deployment stuck = deployment(2, 2L, 2, 2, 0);
    stuck.getStatus().conditions(List.of(new V1DeploymentCondition().type("Progressing").status("False")
        .reason("ProgressDeadlineExceeded").message("ReplicaSet \"shop-1\" has timed out progressing.")));
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), stuck, null);
    assertAbnormal(status, false, true);
    assertThat(Conditions.find(status.conditions(), "Stalled").getReason()).isEqualTo("ProgressDeadlineExceeded");
  }

  @Test
  void aTransientApiFailureIsDegradedAndReconcilingButNotStalled() {
    WebAppStatus status = compute(DesiredStateTest.webApp(DesiredStateTest.spec()), deployment(2, 2L, 2, 2, 2),
        Problem.apiFailure("update Deployment failed with HTTP 503: unavailable"));
    assertThat(status.phase()).isEqualTo(Phase.Degraded);
    assertThat(Conditions.find(status.conditions(), "Degraded").getReason()).isEqualTo("ApiFailure");
    assertAbnormal(status, true, false);
    assertThat(Conditions.find(status.conditions(), "Reconciling").getReason()).isEqualTo("Retrying");
  }

  @Test
  void aLongMessageIsShortenedSoTheStatusStaysWritable() {
    Problem problem = Problem.rejected("Deployment", "x".repeat(100_000));
    assertThat(problem.message()).hasSizeLessThanOrEqualTo(Problem.MAX_MESSAGE).endsWith("…");
  }
}
