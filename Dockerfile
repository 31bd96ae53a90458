# syntax=docker/dockerfile:1
#
# Steward's container image: `docker build -t steward:0.1.0 .`
#
# Stage 1 builds the Spring Boot jar with Maven and splits it into its layers; stage 2 copies the
# layers, least-often-changed first, onto a JRE, so a code change rebuilds and pushes only the small
# "application" layer and the class-data-sharing archive made from it. DockerfileIT assembles this
# image without Docker (ContainerImage) and starts it; the benchmark measures that assembly.

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
RUN java -Djarmode=tools -jar ${JAR_FILE} extract --layers --application-filename steward.jar --destination target/extracted

FROM ${RUNTIME_IMAGE}
WORKDIR /app
# Spring Boot's layers (`java -Djarmode=tools -jar <jar> list-layers`), in that order.
COPY --from=build /workspace/target/extracted/dependencies/ ./
COPY --from=build /workspace/target/extracted/spring-boot-loader/ ./
COPY --from=build /workspace/target/extracted/snapshot-dependencies/ ./
COPY --from=build /workspace/target/extracted/application/ ./
# The heap follows the container's memory limit; an OutOfMemoryError ends the process so Kubernetes
# restarts it. The rest is Steward's tuning, the same as the chart's jvm.options: what each option is
# for is in docs/performance.md.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.5 -XX:+UseG1GC -XX:MaxNewSize=24m -XX:+UseStringDeduplication -XX:InitialRAMPercentage=12 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 -XX:G1PeriodicGCInterval=30000 -XX:ParallelGCThreads=2 -XX:ConcGCThreads=1 -XX:CICompilerCount=2 -XX:-UsePerfData"
# Class-data sharing (Spring Boot's recipe): a training run that stops once the context is refreshed
# archives the classes it loaded, so every start maps them instead of loading them. Nothing connects
# before the refresh, so a kubeconfig pointing nowhere will do. Both runs use Spring AOT's bean
# definitions (docs/architecture.md, "Pieces written by hand").
RUN --mount=type=bind,source=src/main/docker/cds-training.kubeconfig,target=/tmp/cds-training.kubeconfig \
    KUBECONFIG=/tmp/cds-training.kubeconfig java -XX:ArchiveClassesAtExit=steward.jsa -Xlog:cds=error \
      -Dspring.aot.enabled=true -Dspring.context.exit=onRefresh -jar steward.jar
# A numeric, non-root user (no entry in /etc/passwd needed), so Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
# Management port: /actuator/health/{liveness,readiness}, /actuator/leader, /actuator/prometheus.
EXPOSE 8081
ENTRYPOINT ["java", "-XX:SharedArchiveFile=steward.jsa", "-Dspring.aot.enabled=true", "-jar", "steward.jar"]
