/** The WebApp custom resource ({@code steward.io/v1alpha1}) as Java models. */
package io.steward.operator.webapp.api;
