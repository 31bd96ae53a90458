/**
 * Small helpers every runtime package may use: named daemon threads ({@link
 * io.steward.operator.runtime.support.Daemons}), log text free of user data ({@link
 * io.steward.operator.runtime.support.LogSafe}) and the work in flight a stop waits for ({@link
 * io.steward.operator.runtime.support.WorkInFlight}). Depends on nothing else of the runtime.
 */
package io.steward.operator.runtime.support;
