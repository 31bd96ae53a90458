/**
 * The WebApp controller: {@link io.steward.operator.webapp.reconcile.WebAppController} says what is
 * watched and what wakes a pass, {@link io.steward.operator.webapp.reconcile.WebAppReconciler} is the
 * pass, {@link io.steward.operator.webapp.reconcile.OwnedObjectSync} writes one owned object and
 * {@link io.steward.operator.webapp.reconcile.WebAppStatusWriter} the status.
 */
package io.steward.operator.webapp.reconcile;
