/**
 * Steward's composition root: {@link io.steward.operator.StewardApplication}, the {@code steward.*}
 * settings ({@link io.steward.operator.StewardProperties}) and one Spring configuration per concern,
 * which wire the runtime ({@code runtime.*}) and the WebApp domain ({@code webapp}) together.
 */
package io.steward.operator;
