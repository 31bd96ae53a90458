#!/usr/bin/env bash
# A real one-node Kubernetes on this machine, built from source (build.sh), for trying Steward's
# image and chart for real. The recipe the Java harness is to follow; FINDINGS.md explains it.
#
#   node.sh up      control plane on the host (etcd on 127.0.0.1, kube-apiserver on HOST_IP),
#                   containerd, kubelet and kube-proxy in a network namespace of their own; waits
#                   until the node is Ready and prints `export KUBECONFIG=...`
#   node.sh down    stops everything it started, removes the pods' containers, mounts, cgroups,
#                   the network namespace and its veth, and restores the kernel settings the kubelet changed
#   node.sh import FILE.tar...   imports OCI image archives into the node's containerd (k8s.io)
#
# Networking (all on this machine; nothing is routed off it):
#   host netns:  stwh0 HOST_IP/30 (kube-apiserver binds here; its `kubernetes` endpoint), a route to
#                POD_CIDR via NODE_IP; etcd, controller manager and scheduler on loopback.
#   node netns "steward-node": stwn0 NODE_IP/30 (the node's InternalIP, the kubelet's port), bridge
#                stwbr0 POD_GATEWAY with the pods on POD_CIDR, kube-proxy's iptables rules (ClusterIP
#                10.0.0.1:443 -> HOST_IP:API_PORT); no default route, so pods reach only the
#                bridge, the service range and HOST_IP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DIR=${STEWARD_NODE_DIR:-/tmp/steward-node}
NETNS=${STEWARD_NODE_NETNS:-steward-node}
NODE_NAME=${STEWARD_NODE_NAME:-steward-node}
HOST_IP=10.250.0.1 NODE_IP=10.250.0.2 POD_CIDR=10.244.0.0/24 POD_GATEWAY=10.244.0.1
SERVICE_CIDR=10.0.0.0/16 SERVICE_IP=10.0.0.1 API_PORT=6443
KERNEL_SETTINGS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"

log() { echo "node.sh: [$(date +%T)] $*" >&2; }
in_node() { nsenter --net="/run/netns/$NETNS" "$@"; }

# start NAME [--netns] COMMAND...: in the background, its own session, output in logs/NAME.log.
start() {
  local name=$1; shift
  local prefix=()
  if [ "$1" = --netns ]; then prefix=(nsenter --net="/run/netns/$NETNS"); shift; fi
  setsid "${prefix[@]}" "$@" > "$DIR/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$DIR/pids/$name"
}

# wait_for WHAT SECONDS COMMAND...
wait_for() {
  local what=$1 seconds=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" > /dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then log "gave up waiting for $what"; return 1; fi
    sleep 0.5
  done
  log "$what: ready"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# cert NAME SUBJECT EXTENSIONS: a key and a certificate signed by the cluster's CA.
cert() {
  local name=$1 subject=$2 extensions=$3
  openssl req -new -newkey rsa:2048 -nodes -keyout "$DIR/pki/$name.key" -subj "$subject" \
    -out "$DIR/pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$DIR/pki/$name.csr" -CA "$DIR/pki/ca.crt" -CAkey "$DIR/pki/ca.key" \
    -CAcreateserial -days 30 -out "$DIR/pki/$name.crt" \
    -extfile <(printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' "$extensions") 2>/dev/null
}

client_cert() { cert "$1" "$2" "extendedKeyUsage=clientAuth"; }

# kubeconfig NAME CERT: a kubeconfig for the client certificate CERT.
kubeconfig() {
  local b64; b64() { base64 -w0 "$1"; }
  cat > "$DIR/kubeconfigs/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: steward-node
    cluster:
      server: https://$HOST_IP:$API_PORT
      certificate-authority-data: $(b64 "$DIR/pki/ca.crt")
users:
  - name: $1
    user:
      client-certificate-data: $(b64 "$DIR/pki/$2.crt")
      client-key-data: $(b64 "$DIR/pki/$2.key")
contexts:
  - name: steward-node
    context: {cluster: steward-node, user: $1}
current-context: steward-node
EOF
}

fill() {
  sed -e "s|@DIR@|$DIR|g" -e "s|@BIN@|$BIN|g" -e "s|@NODE_IP@|$NODE_IP|g" -e "s|@HOST_IP@|$HOST_IP|g" \
    -e "s|@POD_CIDR@|$POD_CIDR|g" -e "s|@POD_GATEWAY@|$POD_GATEWAY|g" -e "s|@SERVICE_CIDR@|$SERVICE_CIDR|g" \
    -e "s|@NODE_NAME@|$NODE_NAME|g" "$1"
}

ctr_() { "$BIN/ctr" --address "$DIR/containerd/containerd.sock" -n k8s.io "$@"; }

import() {
  local file
  for file in "$@"; do
    local t0=$(date +%s.%N)
    ctr_ images import --platform linux/amd64 "$file" >&2
    log "imported $(basename "$file") in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
  done
}

up() {
  [ "$(id -u)" = 0 ] || { echo "node.sh: a real node needs root" >&2; exit 1; }
  if ip netns list | grep -qw "$NETNS"; then echo "node.sh: $NETNS exists; run node.sh down first" >&2; exit 1; fi
  for tool in iptables openssl nsenter setsid bc; do
    command -v $tool > /dev/null || { echo "node.sh: needs $tool (apt-get install iptables openssl util-linux bc)" >&2; exit 127; }
  done
  BIN=$(bash "$here/build.sh" | tail -1)
  CONTROLPLANE=${STEWARD_CONTROLPLANE:-$(bash "$here/../controlplane/build.sh" | tail -1)}
  rm -rf "$DIR"; mkdir -p "$DIR"/{pki,logs,pids,kubeconfigs,cni/net.d,kubelet,containerd}
  echo "$BIN" > "$DIR/bin"
  local t0=$(date +%s)

  # ---- certificates (what ClusterPki makes, plus the node's identities) ----
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$DIR/pki/ca.key" -out "$DIR/pki/ca.crt" -days 30 \
    -subj "/CN=steward-local-ca" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  # In-cluster clients dial the ClusterIP (KUBERNETES_SERVICE_HOST); the node and the host dial HOST_IP.
  cert apiserver "/CN=kube-apiserver" "extendedKeyUsage=serverAuth
subjectAltName=IP:$HOST_IP,IP:$SERVICE_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  openssl genrsa -out "$DIR/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$DIR/pki/sa.key" -pubout -out "$DIR/pki/sa.pub" 2>/dev/null
  client_cert admin "/O=system:masters/CN=steward-admin"
  # As LocalCluster does: the controllers and the scheduler act with their own names in system:masters
  # (the controller manager without --use-service-account-credentials needs more than its default role).
  client_cert kube-controller-manager "/O=system:masters/CN=system:kube-controller-manager"
  client_cert kube-scheduler "/O=system:masters/CN=system:kube-scheduler"
  client_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  client_cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"
  client_cert kube-proxy "/CN=system:kube-proxy"
  kubeconfig admin admin
  kubeconfig kube-controller-manager kube-controller-manager
  kubeconfig kube-scheduler kube-scheduler
  kubeconfig kubelet kubelet
  kubeconfig kube-proxy kube-proxy
  cp "$DIR/kubeconfigs/admin.kubeconfig" "$DIR/kubeconfig"

  # ---- network: the node's namespace and the veth to the host ----
  ip netns add "$NETNS"
  ip link add stwh0 type veth peer name stwn0 netns "$NETNS"
  ip addr add "$HOST_IP/30" dev stwh0
  ip link set stwh0 up
  in_node ip link set lo up
  in_node ip addr add "$NODE_IP/30" dev stwn0
  in_node ip link set stwn0 up
  ip route add "$POD_CIDR" via "$NODE_IP" dev stwh0
  log "network namespace $NETNS: stwn0 $NODE_IP <-> stwh0 $HOST_IP; pods $POD_CIDR"

  # ---- control plane ----
  local etcd_port peer_port
  etcd_port=$(free_port); peer_port=$(free_port)
  start etcd "$CONTROLPLANE" etcd --name=steward --data-dir="$DIR/etcd" \
    --listen-client-urls=http://127.0.0.1:$etcd_port --advertise-client-urls=http://127.0.0.1:$etcd_port \
    --listen-peer-urls=http://127.0.0.1:$peer_port --initial-advertise-peer-urls=http://127.0.0.1:$peer_port \
    --initial-cluster=steward=http://127.0.0.1:$peer_port --unsafe-no-fsync=true --log-level=warn
  wait_for etcd 60 curl -sf http://127.0.0.1:$etcd_port/health
  # As LocalCluster starts it, except: bound to HOST_IP, not loopback (pods cannot reach the host's
  # loopback); the Node authorizer and NodeRestriction (the kubelet is system:node:NAME); the default
  # (lease) endpoint reconciler, which publishes HOST_IP:API_PORT as the `kubernetes` Service's
  # endpoints for kube-proxy; and a client certificate for the kubelet API (logs, exec, port-forward).
  start kube-apiserver "$CONTROLPLANE" kube-apiserver --etcd-servers=http://127.0.0.1:$etcd_port \
    --bind-address=$HOST_IP --advertise-address=$HOST_IP --secure-port=$API_PORT \
    --tls-cert-file="$DIR/pki/apiserver.crt" --tls-private-key-file="$DIR/pki/apiserver.key" \
    --client-ca-file="$DIR/pki/ca.crt" --authorization-mode=Node,RBAC \
    --kubelet-client-certificate="$DIR/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$DIR/pki/apiserver-kubelet-client.key" --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$DIR/pki/sa.pub" --service-account-signing-key-file="$DIR/pki/sa.key" \
    --service-cluster-ip-range=$SERVICE_CIDR --allow-privileged=true --profiling=false \
    --disable-admission-plugins=TaintNodesByCondition \
    --enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement
  export KUBECONFIG="$DIR/kubeconfig"
  wait_for kube-apiserver 90 kubectl get --raw /readyz
  start kube-controller-manager "$CONTROLPLANE" kube-controller-manager \
    --kubeconfig="$DIR/kubeconfigs/kube-controller-manager.kubeconfig" --leader-elect=false --secure-port=0 \
    --controllers=deployment-controller,replicaset-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,validatingadmissionpolicy-status-controller,endpointslice-controller,disruption-controller \
    --use-service-account-credentials=false \
    --service-account-private-key-file="$DIR/pki/sa.key" --root-ca-file="$DIR/pki/ca.crt"
  start kube-scheduler "$CONTROLPLANE" kube-scheduler \
    --kubeconfig="$DIR/kubeconfigs/kube-scheduler.kubeconfig" --leader-elect=false --secure-port=0
  wait_for "default service account" 60 kubectl get serviceaccount default

  # ---- containerd ----
  fill "$here/config/containerd.toml" > "$DIR/containerd/config.toml"
  fill "$here/config/cni.conflist" > "$DIR/cni/net.d/10-steward-node.conflist"
  start containerd --netns env PATH="$BIN:$PATH" "$BIN/containerd" --config "$DIR/containerd/config.toml"
  wait_for containerd 30 ctr_ version
  import "$BIN/images/pause.tar" "$BIN/images/runtime-base.tar"

  # ---- kubelet and kube-proxy, in the node's network namespace ----
  local setting
  for setting in $KERNEL_SETTINGS; do echo "$setting=$(sysctl -n "$setting")"; done > "$DIR/kernel-settings"
  fill "$here/config/kubelet.yaml" > "$DIR/kubelet/config.yaml"
  start kubelet --netns "$BIN/node" kubelet --config="$DIR/kubelet/config.yaml" \
    --kubeconfig="$DIR/kubeconfigs/kubelet.kubeconfig" --root-dir="$DIR/kubelet" --cert-dir="$DIR/kubelet/pki" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
  fill "$here/config/kube-proxy.yaml" > "$DIR/kube-proxy.yaml"
  start kube-proxy --netns "$BIN/node" kube-proxy --config="$DIR/kube-proxy.yaml" --v=1
  wait_for "node $NODE_NAME Ready" 120 kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s
  log "up in $(( $(date +%s) - t0 )) s"
  echo "export KUBECONFIG=$DIR/kubeconfig"
}

stop_pid() {
  local name=$1 pid
  [ -f "$DIR/pids/$name" ] || return 0
  pid=$(cat "$DIR/pids/$name")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/pids/$name"
}

down() {
  [ -d "$DIR" ] || return 0
  BIN=$(cat "$DIR/bin" 2>/dev/null || true)
  stop_pid kube-proxy
  stop_pid kubelet
  if [ -f "$DIR/buildkitd.pid" ]; then mv "$DIR/buildkitd.pid" "$DIR/pids/buildkitd"; stop_pid buildkitd; fi   # image.sh's
  if [ -n "$BIN" ] && [ -S "$DIR/containerd/containerd.sock" ]; then
    # Stop and remove every pod sandbox (and so its containers and its CNI set-up).
    "$BIN/crictl" --runtime-endpoint "unix://$DIR/containerd/containerd.sock" rmp -fa > /dev/null 2>&1 || true
  fi
  stop_pid containerd
  # Shims that outlived containerd (they are started detached): ours name our socket on their command line.
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $DIR/containerd/containerd.sock" || true); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  for name in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop_pid "$name"; done
  # Mounts under DIR (pod volumes, the kubelet's rshared root, snapshots, sandbox shm), deepest first.
  awk -v d="$DIR" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  # cgroups the kubelet and containerd made (empty once their processes are gone).
  local c
  for c in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/unified/kubepods; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  if ip netns list | grep -qw "$NETNS"; then ip netns delete "$NETNS"; fi   # takes stwn0, so stwh0 and its route too
  ip link delete stwh0 2>/dev/null || true
  if [ -f "$DIR/kernel-settings" ]; then
    while IFS== read -r key value; do sysctl -qw "$key=$value" || true; done < "$DIR/kernel-settings"
    rm -f "$DIR/kernel-settings"
  fi
  log "down"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  import) shift; BIN=$(cat "$DIR/bin"); import "$@" ;;
  *) echo "usage: node.sh up|down|import FILE.tar..." >&2; exit 2 ;;
esac
