/**
 * The WebApp domain, built on the runtime: the desired Deployment and Service ({@link
 * io.steward.operator.webapp.DeploymentResource}, {@link io.steward.operator.webapp.ServiceResource}),
 * the fields Steward owns ({@link io.steward.operator.webapp.ManagedFields}) and the status computed
 * from what is observed ({@link io.steward.operator.webapp.WebAppStatusCalculator}). The resource
 * itself is in {@code api}, the reconcile loop in {@code reconcile}.
 */
package io.steward.operator.webapp;
