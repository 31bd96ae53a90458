package io.steward.operator;

import io.kubernetes.client.extended.event.EventType;
import io.kubernetes.client.extended.event.legacy.EventBroadcaster;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.client.OperatorIdentity;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.runtime.election.LeaseNamespace;
import io.steward.operator.runtime.election.RivalLeases;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.sharding.BucketCaches;
import io.steward.operator.runtime.sharding.BucketGate;
import io.steward.operator.runtime.sharding.BucketInformers;
import io.steward.operator.runtime.sharding.BucketOwnership;
import io.steward.operator.runtime.sharding.BucketTerms;
import io.steward.operator.runtime.sharding.MisfiledObjects;
import io.steward.operator.runtime.web.ShardsEndpoint;
import io.steward.operator.webapp.api.WebApp;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sharded mode ({@code steward.sharding.enabled=true}): a term per bucket for the write fence, the
 * bucket Leases, the gate in front of the WebApp reconciler, {@code /actuator/shards}, and what a
 * bucket move does here: start the bucket's informers and queue its WebApps when it is taken, stop
 * them when it goes, and record an Event on its Lease.
 *
 * <p>The mode is chosen as the beans are made, not by a condition: the image starts with the bean
 * definitions Spring AOT prepared at build time, where conditions are evaluated once, so a
 * condition would cost sharded replicas those definitions and a slower start. In single-leader
 * mode {@link #bucketTerms} makes no bean, every bean built on it none either, and those who
 * look for them ({@code ObjectProvider}) find none.
 */
@Configuration(proxyBeanMethods = false)
public class ShardingConfiguration {
  @Bean
  BucketTerms bucketTerms(StewardProperties properties) {
    if (!properties.getSharding().isEnabled()) {
      return null;
    }
    StewardProperties.LeaderElection timing = properties.getLeaderElection();
    return new BucketTerms(properties.getSharding().getBuckets(), timing.getRenewDeadline(), timing.getRetryPeriod());
  }

  /** The informers of the buckets this replica caches, beside the kinds' own ({@link ControllerConfiguration}). */
  @Bean
  BucketInformers bucketInformers(Informers informers, ObjectProvider<BucketTerms> bucketTerms) {
    BucketTerms terms = bucketTerms.getIfAvailable();
    return terms == null ? null : new BucketInformers(informers, terms.buckets());
  }

  @Bean
  BucketOwnership bucketOwnership(OperatorClients clients, LeaseNamespace leaseNamespace, OperatorIdentity identity,
      ObjectProvider<BucketTerms> bucketTerms, WriteFence fence, StewardProperties properties, Informers informers,
      ObjectProvider<BucketInformers> bucketInformers, MeterRegistry registry,
      ObjectProvider<ManagedController<WebApp>> controller, EventBroadcaster events) {
    BucketTerms terms = bucketTerms.getIfAvailable();
    if (terms == null) {
      return null;
    }
    BucketInformers buckets = bucketInformers.getObject();
    StewardProperties.LeaderElection timing = properties.getLeaderElection();
    var recorder = events.newRecorder(new V1EventSource().component("steward").host(identity.name()));
    BucketCaches caches = new BucketCaches(buckets, taken -> controller.getObject()
        .requeue(request -> terms.bucketOf(request.getNamespace(), request.getName()), taken));
    Gauge.builder("steward_shard_buckets_listed_ahead", caches, c -> c.ahead().size())
        .description("Buckets whose caches this replica lists ahead of taking them").register(registry);
    Gauge.builder("steward_shard_bucket_informer_groups", buckets, i -> i.bucketGroups().size())
        .description("Groups of buckets listed and watched together, by one informer per kind each")
        .register(registry);
    BucketOwnership.Listener listener = new BucketOwnership.Listener() {
      @Override
      public void moved(int bucket, BucketOwnership.Move move, String detail) {
        if (move != BucketOwnership.Move.ACQUIRED) {
          caches.letGo(bucket); // a taken bucket's caches start with the others taken in its round
        }
        V1Lease lease = new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease")
            .metadata(new V1ObjectMeta().namespace(leaseNamespace.name()).name("steward-bucket-" + bucket));
        String reason = switch (move) {
          case ACQUIRED -> "BucketAcquired";
          case RELEASED -> "BucketReleased";
          case LOST -> "BucketLost";
        };
        recorder.event(lease, move == BucketOwnership.Move.LOST ? EventType.Warning : EventType.Normal, reason,
            "Bucket %s %s by %s (%s)", Integer.toString(bucket), move.name().toLowerCase(), identity.name(), detail);
      }

      @Override
      public void expecting(Set<Integer> buckets) {
        caches.expecting(buckets);
      }

      @Override
      public void acquired(Set<Integer> buckets) {
        caches.acquired(buckets);
      }
    };
    CoordinationV1Api leases = new CoordinationV1Api(clients.requests());
    RivalLeases leaderLease = new RivalLeases(RivalLeases.Source.named(leases, leaseNamespace.name(),
        timing.getLeaseName()), timing.getLeaseDuration());
    return new BucketOwnership(leases, leaseNamespace.name(), identity.name(), terms, fence,
        timing.getLeaseDuration(), timing.getRetryPeriod(), properties.getFencing().isLocalGuard(),
        informers::hasSynced, leaderLease, registry, listener).watchingLeases(clients.watches());
  }

  @Bean
  MisfiledObjects misfiledObjects(OperatorClients clients, ObjectProvider<BucketInformers> bucketInformers,
      ObjectProvider<BucketTerms> bucketTerms, StewardProperties properties, MeterRegistry registry) {
    BucketTerms terms = bucketTerms.getIfAvailable();
    if (terms == null) {
      return null;
    }
    MisfiledObjects misfiled = new MisfiledObjects(clients.requests(), terms.buckets(),
        properties.getLeaderElection().getRetryPeriod(), registry);
    bucketInformers.getObject().onMisfiled(misfiled);
    return misfiled;
  }

  @Bean
  BucketGate bucketGate(ObjectProvider<BucketOwnership> bucketOwnership, ObjectProvider<BucketTerms> bucketTerms,
      ObjectProvider<BucketInformers> bucketInformers, StewardProperties properties) {
    BucketOwnership ownership = bucketOwnership.getIfAvailable();
    BucketTerms terms = bucketTerms.getIfAvailable();
    if (ownership == null || terms == null) {
      return null;
    }
    return new BucketGate(ownership, terms, bucketInformers.getObject()::bucketSynced,
        properties.getLeaderElection().getRetryPeriod());
  }

  /**
   * {@code steward_shard_bucket_queue_depth{bucket}}: requests waiting in this replica's work queue for
   * each bucket. A bucket owned elsewhere shows what this replica will drop at the gate.
   */
  @Bean
  MeterBinder bucketQueueDepth(ObjectProvider<ManagedController<WebApp>> controller,
      ObjectProvider<BucketTerms> bucketTerms) {
    BucketTerms terms = bucketTerms.getIfAvailable();
    if (terms == null) {
      return null;
    }
    return registry -> {
      for (int bucket = 0; bucket < terms.buckets(); bucket++) {
        int b = bucket;
        Gauge.builder("steward_shard_bucket_queue_depth", () -> controller.getObject().queue()
                .countWaiting(request -> terms.bucketOf(request.getNamespace(), request.getName()) == b))
            .description("Requests waiting in this replica's work queue for the bucket")
            .tag("bucket", Integer.toString(b)).register(registry);
      }
    };
  }

  /** Always a bean, so that Actuator finds it whatever the mode; it answers 404 in single-leader mode. */
  @Bean
  ShardsEndpoint shardsEndpoint(ObjectProvider<BucketOwnership> ownership, ObjectProvider<BucketTerms> terms,
      ObjectProvider<BucketInformers> bucketInformers) {
    return new ShardsEndpoint(ownership.getIfAvailable(), terms.getIfAvailable(), bucketInformers.getIfAvailable());
  }
}
