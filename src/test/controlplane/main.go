// Command controlplane is a multi-call binary (as hyperkube was) holding the upstream entry points
// of etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok. One binary shares one
// compile and one link, which matters on a 2-core machine where a cold build takes many minutes.
//
//	controlplane <component> [upstream flags...]
//	controlplane kwok-stages   # prints kwok's default node and pod stages as one YAML stream
//	controlplane version
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	etcdmain "go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/component-base/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	kwoklog "sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: controlplane etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kwok|kwok-stages|version [flags]")
		os.Exit(2)
	}
	component, args := os.Args[1], os.Args[2:]
	exitWhenParentGoes()

	switch component {
	case "etcd":
		etcdmain.Main(append([]string{"etcd"}, args...))
	case "kube-apiserver":
		os.Exit(runCobra(apiserver.NewAPIServerCommand(), args))
	case "kube-controller-manager":
		os.Exit(runCobra(controllermanager.NewControllerManagerCommand(), args))
	case "kube-scheduler":
		os.Exit(runCobra(scheduler.NewSchedulerCommand(), args))
	case "kwok":
		os.Exit(runKwok(args))
	case "kwok-stages":
		fmt.Print(strings.Join([]string{nodefast.DefaultNodeInit, nodeheartbeat.DefaultNodeHeartbeatWithLease,
			podfast.DefaultPodReady, podfast.DefaultPodComplete, podfast.DefaultPodDelete}, "\n---\n"))
	case "version":
		fmt.Println(version.Get().GitVersion)
	default:
		fmt.Fprintf(os.Stderr, "controlplane: unknown component %q\n", component)
		os.Exit(2)
	}
}

func runCobra(cmd *cobra.Command, args []string) int {
	cmd.SetArgs(args)
	return cli.Run(cmd)
}

// runKwok mirrors sigs.k8s.io/kwok/cmd/kwok/main.go.
func runKwok(args []string) int {
	// The Kubernetes packages linked into this binary register a "--version" flag of their own type
	// in pflag's global set at init; kwok expects a boolean one there. Give kwok a clean global set.
	pflag.CommandLine = pflag.NewFlagSet("kwok", pflag.ExitOnError)
	flagset := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flagset.ParseErrorsAllowlist.UnknownFlags = true
	flagset.Usage = func() {}
	os.Args = append([]string{"kwok"}, args...)

	ctx := signals.SetupSignalContext()
	ctx, logger := kwoklog.InitFlags(ctx, flagset)
	ctx, err := kwokconfig.InitFlags(ctx, flagset)
	if err != nil {
		logger.Error("Init config flags", "err", err)
		return 1
	}
	command := kwokcmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flagset)
	command.SetArgs(args)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("Execute exit", "err", err)
		return 1
	}
	return 0
}

// exitWhenParentGoes makes the component unable to outlive the JVM that started it: when
// STEWARD_PARENT_PIPE=stdin, the parent keeps our stdin open and only its death closes it.
// We then ask ourselves to stop (SIGTERM) and exit hard if that takes longer than a few seconds.
func exitWhenParentGoes() {
	if os.Getenv("STEWARD_PARENT_PIPE") != "stdin" {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "controlplane: parent is gone (stdin closed); stopping")
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(5 * time.Second)
		os.Exit(3)
	}()
}
