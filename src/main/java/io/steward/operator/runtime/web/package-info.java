/**
 * The management port: {@link io.steward.operator.runtime.web.ActuatorHttpServer} serves Actuator's
 * web endpoints on the JDK's HTTP server; beside it Steward's own endpoints and health indicators.
 * May use every other runtime package; none uses it.
 */
package io.steward.operator.runtime.web;
