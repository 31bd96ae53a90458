package io.steward.operator.webapp.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.operator.webapp.api.WebAppStatus;
import org.junit.jupiter.api.Test;

class WebAppControllerTest {
  @Test
  void aWebAppWhoseStatusObservedItsGenerationAndIsReadyOrPausedIsSettled() {
    assertThat(WebAppController.settled(webApp(3L, status(Phase.Ready, 3L)))).isTrue();
    assertThat(WebAppController.settled(webApp(3L, status(Phase.Paused, 3L)))).isTrue();
  }

  @Test
  void aSpecChangeNotYetObservedIsNotSettled() {
    assertThat(WebAppController.settled(webApp(4L, status(Phase.Ready, 3L)))).isFalse();
  }

  @Test
  void aWebAppNeverReportedOnOrStillUnderWayIsNotSettled() {
    assertThat(WebAppController.settled(webApp(1L, null))).isFalse();
    assertThat(WebAppController.settled(webApp(1L, status(Phase.Ready, null)))).isFalse();
    assertThat(WebAppController.settled(webApp(3L, status(Phase.Progressing, 3L)))).isFalse();
    assertThat(WebAppController.settled(webApp(3L, status(Phase.Degraded, 3L)))).isFalse();
    assertThat(WebAppController.settled(webApp(3L, status(Phase.Pending, 3L)))).isFalse();
  }

  private static WebApp webApp(Long generation, WebAppStatus status) {
    return new WebApp().metadata(new V1ObjectMeta().name("a").namespace("n").generation(generation)).status(status);
  }

  private static WebAppStatus status(Phase phase, Long observedGeneration) {
    return new WebAppStatus(phase, observedGeneration, null, null, null, null, null, null);
  }
}
