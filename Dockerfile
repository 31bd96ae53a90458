# syntax=docker/dockerfile:1
#
# Steward's container image: `docker build -t steward:0.1.0 .`
#
# Stage 1 builds the Spring Boot jar with Maven and splits it into its layers; stage 2 copies the
# layers, least-often-changed first, onto a JRE, so a code change rebuilds and pushes only the small
# "application" layer. DockerfileIT checks this file against the jar `mvn package` builds.

ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /workspace
# Dependencies first: this layer stays cached while only the sources change.
COPY pom.xml .
RUN --mount=type=cache,target=/root/.m2 mvn -B -q dependency:go-offline
COPY src/main src/main
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -Dmaven.test.skip=true package
# The jar `mvn package` writes (artifactId-version.jar).
ARG JAR_FILE=target/steward-0.1.0-SNAPSHOT.jar
RUN java -Djarmode=tools -jar ${JAR_FILE} extract --layers --launcher --destination target/extracted

FROM ${RUNTIME_IMAGE}
WORKDIR /app
# Spring Boot's layers (`java -Djarmode=tools -jar <jar> list-layers`), in that order.
COPY --from=build /workspace/target/extracted/dependencies/ ./
COPY --from=build /workspace/target/extracted/spring-boot-loader/ ./
COPY --from=build /workspace/target/extracted/snapshot-dependencies/ ./
COPY --from=build /workspace/target/extracted/application/ ./
# A numeric, non-root user (no entry in /etc/passwd needed), so Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
# Container-aware JVM: the heap follows the container's memory limit, leaving room for metaspace,
# thread stacks and buffers; an OutOfMemoryError ends the process so Kubernetes restarts it.
# (The Helm chart and config/manager set JAVA_TOOL_OPTIONS from their own values.)
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError"
# Management port: /actuator/health/{liveness,readiness}, /actuator/leader, /actuator/prometheus.
EXPOSE 8081
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
