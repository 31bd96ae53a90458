package io.steward.operator;

import io.steward.operator.runtime.web.ActuatorHttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.IncludeExcludeEndpointFilter;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointFilter;
import org.springframework.boot.actuate.endpoint.OperationFilter;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.ParameterValueMapper;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMapper;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointWebExtension;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointProperties;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Actuator's web endpoints without a servlet container: what Spring Boot's web endpoint
 * auto-configuration defines for a web application that this server needs (discovery filtered by
 * {@code management.endpoints.web.exposure}, path mapping, access, the health endpoint's web
 * extension, which answers 503 when a group is down), served by {@link ActuatorHttpServer} on
 * {@code management.server.port}, else {@code server.port}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WebEndpointProperties.class)
public class ActuatorServerConfiguration {

  @Bean
  PathMapper webEndpointPathMapper(WebEndpointProperties properties) {
    Map<String, String> mapping = properties.getPathMapping();
    return endpointId -> mapping.get(endpointId.toString());
  }

  @Bean
  IncludeExcludeEndpointFilter<ExposableWebEndpoint> webExposeExcludePropertyEndpointFilter(
      WebEndpointProperties properties) {
    WebEndpointProperties.Exposure exposure = properties.getExposure();
    return new IncludeExcludeEndpointFilter<>(ExposableWebEndpoint.class, exposure.getInclude(), exposure.getExclude(),
        EndpointExposure.WEB.getDefaultIncludes());
  }

  @Bean
  OperationFilter<WebOperation> webAccessPropertiesOperationFilter(EndpointAccessResolver access) {
    return OperationFilter.byAccess(access);
  }

  @Bean
  WebEndpointDiscoverer webEndpointDiscoverer(ApplicationContext context, ParameterValueMapper parameters,
      ObjectProvider<PathMapper> pathMappers, ObjectProvider<OperationInvokerAdvisor> advisors,
      ObjectProvider<EndpointFilter<ExposableWebEndpoint>> endpointFilters,
      ObjectProvider<OperationFilter<WebOperation>> operationFilters) {
    return new WebEndpointDiscoverer(context, parameters, EndpointMediaTypes.DEFAULT, pathMappers.orderedStream().toList(),
        List.of(), advisors.orderedStream().toList(), endpointFilters.orderedStream().toList(),
        operationFilters.orderedStream().toList());
  }

  @Bean
  HealthEndpointWebExtension healthEndpointWebExtension(HealthContributorRegistry registry,
      ObjectProvider<ReactiveHealthContributorRegistry> reactiveRegistry, HealthEndpointGroups groups,
      HealthEndpointProperties properties) {
    return new HealthEndpointWebExtension(registry, reactiveRegistry.getIfAvailable(), groups,
        properties.getLogging().getSlowIndicatorThreshold());
  }

  @Bean
  ActuatorHttpServer actuatorHttpServer(ConfigurableApplicationContext context, WebEndpointProperties properties,
      WebEndpointDiscoverer endpoints, EndpointJsonMapper endpointJson, JsonMapper json) {
    ConfigurableEnvironment environment = context.getEnvironment();
    return new ActuatorHttpServer(address(environment), properties.getBasePath(), endpoints.getEndpoints(),
        endpointJson.get(), json,
        // Where Spring Boot's web servers publish theirs, for whoever started with port 0.
        port -> environment.getPropertySources().addFirst(
            new MapPropertySource("server.ports", Map.of("local.server.port", port))));
  }

  /** {@code management.server.*} if set, as Spring Boot's separate management server would take it. */
  static InetSocketAddress address(Environment environment) {
    String port = environment.getProperty("management.server.port", environment.getProperty("server.port", "8080"));
    String host = environment.getProperty("management.server.address", environment.getProperty("server.address"));
    int number;
    try {
      number = Integer.parseInt(port.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("server.port (or management.server.port) is not a port number: " + port);
    }
    if (number < 0 || number > 65535) {
      throw new IllegalArgumentException("server.port (or management.server.port) is out of range: " + port);
    }
    if (host == null || host.isBlank()) {
      return new InetSocketAddress(number);
    }
    try {
      return new InetSocketAddress(InetAddress.getByName(host.trim()), number);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("server.address (or management.server.address) is not an address: " + host,
          e);
    }
  }
}
