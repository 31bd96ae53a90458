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
# Container-aware JVM: the heap follows the container's memory limit, leaving room for metaspace,
# thread stacks and buffers; an OutOfMemoryError ends the process so Kubernetes restarts it. C1
# only, compiling a method after half the usual number of calls (less interpreted code in a first
# burst), G1 with string deduplication (short pauses with many large WebApps cached) and a small
# young generation (a burst's short-lived objects are collected sooner rather than growing the heap,
# which lowers the pod's peak memory at no cost in CPU), a heap that starts at an eighth of the
# limit (not dozens of collections growing it during start-up) and is given back when mostly free
# (at rest too: a concurrent collection after half a minute without any), and collector and compiler
# threads for two CPUs whatever the node has, and no performance-data file (its sampler wakes a
# thread many times a second for jstat and jps; jcmd <pid> still works): Steward's tuning
# (charts/steward/values.yaml, jvm.options).
# (The Helm chart and config/manager set the same JAVA_TOOL_OPTIONS from their own values.)
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.5 -XX:+UseG1GC -XX:MaxNewSize=24m -XX:+UseStringDeduplication -XX:InitialRAMPercentage=12 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 -XX:G1PeriodicGCInterval=30000 -XX:ParallelGCThreads=2 -XX:ConcGCThreads=1 -XX:CICompilerCount=2 -XX:-UsePerfData"
# Class-data sharing (Spring Boot's recipe): a training run that stops once the application context
# is refreshed archives the classes it loaded, and every start maps them instead of loading and
# verifying them again, which halves start-up. Nothing connects to an API server before the context
# is refreshed, so a kubeconfig pointing nowhere will do. The archive belongs to this JRE and this
# class path; should they ever differ, the JVM starts without it. Both the training run and the
# ENTRYPOINT use the bean definitions Spring AOT wrote into the jar (spring.aot.enabled), which
# spares parsing configuration classes and evaluating their conditions at every start; Steward sets
# them aside by itself when the environment selects other beans (PreparedBeanSet).
RUN --mount=type=bind,source=src/main/docker/cds-training.kubeconfig,target=/tmp/cds-training.kubeconfig \
    KUBECONFIG=/tmp/cds-training.kubeconfig java -XX:ArchiveClassesAtExit=steward.jsa -Xlog:cds=error \
      -Dspring.aot.enabled=true -Dspring.context.exit=onRefresh -jar steward.jar
# A numeric, non-root user (no entry in /etc/passwd needed), so Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
# Management port: /actuator/health/{liveness,readiness}, /actuator/leader, /actuator/prometheus.
EXPOSE 8081
ENTRYPOINT ["java", "-XX:SharedArchiveFile=steward.jsa", "-Dspring.aot.enabled=true", "-jar", "steward.jar"]
