/**
 * What the reconcilers read instead of the API server: {@link io.steward.operator.runtime.cache.Informers}
 * holds one informer per watched kind and namespace, each kind read as one
 * {@link io.steward.operator.runtime.cache.KindInformer}; a
 * {@link io.steward.operator.runtime.cache.ReadYourWritesCache} in front shows the operator its own
 * writes before the watch does. Uses only {@code support}.
 */
package io.steward.operator.runtime.cache;
