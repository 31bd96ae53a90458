package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** Where Actuator's server listens, and the errors that name a bad setting. */
class ActuatorServerConfigurationTest {

  @Test
  void serverPortUnlessTheManagementPortIsSet() {
    InetSocketAddress server = ActuatorServerConfiguration.address(new MockEnvironment().withProperty("server.port", "8081"));
    assertThat(server.getPort()).isEqualTo(8081);
    assertThat(server.getAddress().isAnyLocalAddress()).isTrue();

    InetSocketAddress management = ActuatorServerConfiguration.address(new MockEnvironment()
        .withProperty("server.port", "8081").withProperty("management.server.port", "9090")
        .withProperty("server.address", "127.0.0.1"));
    assertThat(management.getPort()).isEqualTo(9090);
    assertThat(management.getAddress().isLoopbackAddress()).isTrue();
  }

  @Test
  void badValuesAreErrorsNamingTheSetting() {
    assertThatThrownBy(() -> ActuatorServerConfiguration.address(new MockEnvironment().withProperty("server.port", "http")))
        .hasMessageContaining("server.port").hasMessageContaining("not a port number: http");
    assertThatThrownBy(() -> ActuatorServerConfiguration.address(new MockEnvironment().withProperty("server.port", "70000")))
        .hasMessageContaining("server.port").hasMessageContaining("out of range");
    assertThatThrownBy(() -> ActuatorServerConfiguration.address(new MockEnvironment()
        .withProperty("server.port", "8081").withProperty("server.address", "::zz")))
        .hasMessageContaining("server.address");
  }
}
