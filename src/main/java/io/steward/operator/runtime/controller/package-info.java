/**
 * Controllers, after controller-runtime's manager: {@link io.steward.operator.runtime.controller.ControllerManager}
 * declares what wakes a reconcile ({@code For}, {@code Owns}, an update filter) and assembles
 * client-java's controller around the runtime's work queue ({@link
 * io.steward.operator.runtime.controller.InstrumentedWorkQueue}: fair, prioritised, rate-limited) and
 * reconcile wrapper (metrics, retries, tracing). Uses {@code support}, {@code client}, {@code cache}
 * and {@code election}.
 */
package io.steward.operator.runtime.controller;
