/**
 * The connection to the API server: {@link io.steward.operator.runtime.client.OperatorClients} makes
 * the request and watch clients from one configured {@code ApiClient} (timeouts, User-Agent, the
 * write guard, request metrics), {@link io.steward.operator.runtime.client.ApiServerConnection} finds
 * and authenticates it, and the rest tunes client-java: lenient JSON decoding, TLS cipher order,
 * whole response bodies, a token re-read after a 401. Uses only {@code support}.
 */
package io.steward.operator.runtime.client;
