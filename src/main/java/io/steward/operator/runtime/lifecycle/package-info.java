/**
 * Running the operator: {@link io.steward.operator.runtime.lifecycle.OperatorLifecycle} starts the
 * informers everywhere and the controller on the leader (or every sharded replica), hands over on a
 * graceful stop and exits after a lost term. Uses every runtime package but {@code web}.
 */
package io.steward.operator.runtime.lifecycle;
